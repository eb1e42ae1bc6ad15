package ports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	receiptrules "github.com/hangar/hangar/services/checkout/internal/domain/receipt"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Seller is who sells, printed on every receipt and invoice (CHECKOUT_SELLER_*).
type Seller struct {
	Name, Address, VAT string
}

// ReceiptHTTP serves the receipt's plain routes next to GetReceipt: the e-mailed link's
// opener and the PDF. Both take the same receipt token (cookie or link) as GetReceipt.
type ReceiptHTTP struct {
	Svc    *app.Service
	Seller Seller
}

// Install adds the routes to srv.
func (h ReceiptHTTP) Install(srv *server.Server) {
	srv.Handle("GET /buy/api/receipt/{invoice_id}/open", http.HandlerFunc(h.open))
	srv.Handle("GET /buy/api/receipt/{invoice_id}/pdf", http.HandlerFunc(h.pdf))
	srv.Handle("POST /buy/api/receipt/{invoice_id}/contact", http.HandlerFunc(h.contact))
}

// reader is who asks for the receipt: the session's caller and the receipt token (the
// link's ?token=, else the cookie).
func reader(r *http.Request, invoiceID string) app.Reader {
	token := r.URL.Query().Get("token")
	if token == "" {
		if c, err := r.Cookie(ReceiptCookiePrefix + strings.ReplaceAll(invoiceID, "-", "")); err == nil {
			token = c.Value
		}
	}
	who, _ := auth.CallerFrom(r.Context())
	return app.Reader{Caller: who, ReceiptToken: token}
}

// contact saves the billing contact printed on the invoice (issue 31: an EU guest's
// 'Print invoice' answered 403 from the account's contact route and sent them to log in);
// whoever may read the receipt may set it. An issued invoice's contact is fixed: a
// different one issues a corrected copy, whose number the answer carries.
func (h ReceiptHTTP) contact(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("invoice_id")
	var c order.Contact
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&c); err != nil {
		server.WriteError(w, errs.E(errs.Invalid, "The billing contact is not valid JSON."))
		return
	}
	o, err := h.Svc.SaveInvoiceContact(r.Context(), id, reader(r, id), c)
	if err != nil {
		server.WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	correctionOf := ""
	if o.Correction != nil {
		correctionOf = o.InvoiceNumber
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"invoiceId": o.InvoiceID, "billingContact": o.InvoiceContact,
		"invoiceNumber": o.CopyNumber(), "correctionOf": correctionOf})
}

// receiptCookieOf is the receipt cookie of the browser that paid or opened the e-mailed
// link: one token (app.Service.ReceiptToken), sent only to that receipt's routes, kept
// as long as the token is good.
func receiptCookieOf(invoiceID, token string) *http.Cookie {
	return &http.Cookie{Name: ReceiptCookiePrefix + strings.ReplaceAll(invoiceID, "-", ""), Value: token,
		Path: "/buy/api/receipt/" + invoiceID, MaxAge: int(app.ReceiptTokenTTL / time.Second), Secure: true, HttpOnly: true,
		SameSite: http.SameSiteLaxMode}
}

// open checks the link's token and turns it into the receipt cookie, then shows the
// receipt page: the link opens the receipt in any browser, and the token leaves the
// address bar (and the page's later requests) at once.
func (h ReceiptHTTP) open(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("invoice_id")
	token := r.URL.Query().Get("token")
	who, _ := auth.CallerFrom(r.Context())
	if _, err := h.Svc.Receipt(r.Context(), id, app.Reader{Caller: who, ReceiptToken: token}); err != nil {
		server.WriteError(w, err)
		return
	}
	if token != "" {
		http.SetCookie(w, receiptCookieOf(id, token))
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	// No body (http.Redirect writes HTML): the contract documents the 303 as headers only.
	w.Header().Set("Location", order.ReceiptURL(id))
	w.WriteHeader(http.StatusSeeOther)
}

func (h ReceiptHTTP) pdf(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("invoice_id")
	o, err := h.Svc.Receipt(r.Context(), id, reader(r, id))
	if err != nil {
		server.WriteError(w, err)
		return
	}
	body, err := ReceiptPDF(o, h.Seller, loadedCatalog(h.Svc))
	if err != nil {
		server.WriteError(w, errs.Wrap(errs.Internal, err, "the receipt could not be rendered"))
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="invoice-%s.pdf"`, safeName(o.CopyNumber(), o.InvoiceID)))
	w.Header().Set("Cache-Control", "private, no-store")
	_, _ = w.Write(body)
}

func safeName(v ...string) string {
	for _, s := range v {
		if s == "" {
			continue
		}
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return '_'
		}, s)
	}
	return "receipt"
}

// ReceiptDoc is what a printed receipt or invoice says, in order (the PDF's text).
func ReceiptDoc(o *order.Placed, s Seller, cat *domain.Catalog) []string {
	res, err := receipt(o, cat)
	if err != nil {
		return nil
	}
	title := "Receipt"
	if res.GetCanPrintInvoice() {
		title = "Invoice"
	}
	out := []string{title, s.Name}
	out = append(out, strings.Split(s.Address, "\n")...)
	if s.VAT != "" {
		out = append(out, "VAT number: "+s.VAT)
	}
	out = append(out, "", "Invoice number: "+o.CopyNumber(), "Date: "+res.Created+" "+res.CreatedTime)
	if c := o.Correction; c != nil {
		out = append(out, "Corrected copy of invoice "+o.InvoiceNumber+" (billing contact changed "+domain.FormatDate(c.CreatedAt)+")")
	}
	out = append(out, "", "Bill to:")
	bill := []string{o.BillingName, o.Email, strings.TrimSpace(o.BillingZip + " " + o.BillingCountry)}
	if c := o.InvoiceContact; c != nil {
		bill = []string{c.Name, c.PhysicalAddress, c.PhysicalAddress2, strings.Join(nonEmpty(c.City, c.StateProvince, c.PostalCode), ", "), c.Country, o.Email}
	}
	for _, v := range bill {
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	if o.BusinessID != "" {
		out = append(out, "VAT ID: "+o.BusinessID)
	}
	// The lines before tax sum to the subtotal; those paid after tax (gift certificates, the
	// account balance) follow the tax, so subtotal + tax + them is the total as printed.
	money := func(cents int64) string { return receiptrules.Printed(cents, o.Currency, o.ThirdParty) }
	out = append(out, "")
	var paid []string
	for _, l := range res.InvoiceItems {
		line := l.Description
		if l.GetQuantity() > 1 {
			line += fmt.Sprintf(" x %d", l.GetQuantity())
		}
		line += ": " + money(int64(l.GetAmountInCents()))
		if l.GetPostTax() {
			paid = append(paid, line)
			continue
		}
		out = append(out, line)
	}
	taxLabel := "Tax"
	if o.TaxLabel != "" {
		taxLabel = o.TaxLabel
	}
	if res.TaxRate != "" {
		taxLabel += " (" + res.TaxRate + ")"
	}
	out = append(out, "", "Subtotal: "+money(o.SubtotalInCents), taxLabel+": "+money(o.TaxInCents))
	out = append(out, paid...)
	out = append(out, "Total: "+money(o.TotalInCents))
	if o.CardLast4 != "" {
		out = append(out, "Paid with "+o.CardBrand+" ending in "+o.CardLast4)
	}
	if res.TaxNote != "" {
		// Which VAT rule applied (the reverse-charge note is one of them).
		out = append(out, "", res.TaxNote)
	}
	return out
}

// ReceiptPDF renders ReceiptDoc as a one-column A4 PDF (go-pdf/fpdf, core fonts: the
// text is Latin-1, which the core fonts' translator maps).
func ReceiptPDF(o *order.Placed, s Seller, cat *domain.Catalog) ([]byte, error) {
	doc := ReceiptDoc(o, s, cat)
	p := fpdf.New("P", "mm", "A4", "")
	p.SetTitle(doc[0]+" "+o.CopyNumber(), true)
	p.SetCreator(s.Name, true)
	p.SetCompression(false) // the text stays searchable as plain bytes (and tests read it)
	p.AddPage()
	tr := p.UnicodeTranslatorFromDescriptor("")
	p.SetFont("Helvetica", "B", 18)
	p.CellFormat(0, 10, tr(doc[0]), "", 1, "L", false, 0, "")
	p.SetFont("Helvetica", "", 11)
	for _, line := range doc[1:] {
		if line == "" {
			p.Ln(4)
			continue
		}
		p.MultiCell(0, 6, tr(line), "", "L", false)
	}
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		return nil, fmt.Errorf("render receipt pdf: %w", err)
	}
	return b.Bytes(), nil
}

func nonEmpty(v ...string) []string {
	var out []string
	for _, s := range v {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
