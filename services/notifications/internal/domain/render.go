package domain

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"sync"
	texttemplate "text/template"
	"time"
)

//go:embed templates
var templateFS embed.FS

// Templates are the e-mails the service renders; each has templates/<name>.subject.tmpl and
// <name>.txt.tmpl (text/template) and <name>.html.tmpl (html/template, inside layout.html.tmpl).
var Templates = []string{"receipt", "gift-buyer", "gift-recipient", "eligibility-code", "welcome", "dunning",
	"password-reset", "password-changed", "invitation"}

// Renderer renders the templates for one Site.
type Renderer struct {
	site  Site
	mails map[string]mailTemplates
	// bufs holds the buffers mails are executed into: grown once to a mail's size, not
	// from empty for every part of every mail.
	bufs sync.Pool
}

// mailTemplates are one mail's parsed parts, looked up once rather than by name per render.
type mailTemplates struct {
	subject, text *texttemplate.Template
	html          *htmltemplate.Template // the layout, with the mail's content
}

// view is what a template receives: the site and the message's data.
type view struct {
	Site Site
	Data any
}

// page is what the HTML layout receives: a view and the subject. Not a struct embedding
// view: templates find a promoted field by searching the embedded structs (reflect's
// FieldByNameFunc, allocating) at every use; flat, a welcome renders in 30% less time.
type page struct {
	Site    Site
	Data    any
	Subject string
}

var funcs = map[string]any{
	"money":   FormatMoney,
	"date":    formatDate,
	"utctime": formatUTCTime,
	"title":   func(s string) string { return strings.ToUpper(s[:min(1, len(s))]) + s[min(1, len(s)):] },
	"url":     func(base, path string) string { return base + path },
	// sentence ends a processor's message with a full stop unless it has one.
	"sentence": func(s string) string {
		if s = strings.TrimSpace(s); s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") {
			s += "."
		}
		return s
	},
}

// formatDate and formatUTCTime print dates as the store does (MM-dd-yyyy), times in UTC
// (spec 001 §9).
func formatDate(t time.Time) string    { return t.UTC().Format("01-02-2006") }
func formatUTCTime(t time.Time) string { return t.UTC().Format("15:04") + " UTC" }

// receiptView is a Receipt as its templates show it: amounts, date and links formatted
// here, once each, not by template funcs and methods, which text/template calls through
// reflect (a receipt made some thirty such calls, most of its render's time).
type receiptView struct {
	OrderID, InvoiceNumber, Email, Currency string
	Gift, OneOff                            bool
	Date, Time                              string // completed at (formatDate, formatUTCTime)
	ItemLines, PaidLines                    []lineView
	Subtotal, Tax, Total                    string
	TaxRow                                  bool // a tax, or a label for one
	TaxLabel                                string
	ReverseCharge                           bool
	CardBrand, CardLast4                    string
	AccountURL                              string
	ReceiptURL                              string // empty: no receipt page
}

// lineView is a Line as the receipt shows it.
type lineView struct {
	Description, Reason string
	Quantity            int32
	Amount              string
}

func (r *Renderer) receiptView(rc Receipt) receiptView {
	lines := func(ls []Line) []lineView {
		out := make([]lineView, len(ls))
		for i, l := range ls {
			out[i] = lineView{Description: l.Description, Reason: l.Reason, Quantity: l.Quantity, Amount: FormatMoney(l.Amount, rc.Currency)}
		}
		return out
	}
	v := receiptView{OrderID: rc.OrderID, InvoiceNumber: rc.InvoiceNumber, Email: rc.Email, Currency: rc.Currency,
		Gift: rc.IsGift(), OneOff: rc.IsOneOff(), Date: formatDate(rc.CompletedAt), Time: formatUTCTime(rc.CompletedAt),
		ItemLines: lines(rc.ItemLines()), PaidLines: lines(rc.PaidLines()),
		Subtotal: FormatMoney(rc.Subtotal, rc.Currency), Tax: FormatMoney(rc.Tax, rc.Currency), Total: FormatMoney(rc.Total, rc.Currency),
		TaxRow: rc.Tax != 0 || rc.TaxLabel != "", TaxLabel: rc.TaxLabel, ReverseCharge: rc.ReverseCharge,
		CardBrand: rc.CardBrand, CardLast4: rc.CardLast4, AccountURL: r.site.BaseURL + rc.AccountPage()}
	if rc.ReceiptPath != "" {
		v.ReceiptURL = r.site.BaseURL + rc.ReceiptPath
	}
	return v
}

// welcomeView is a Welcome as its templates show it, formatted here as receiptView is.
type welcomeView struct {
	Email, Organization string
	Business            bool
	SetPasswordURL      string // empty: no link
	ExpiresDate         string // the link's expiry (formatDate, formatUTCTime)
	ExpiresTime         string
	LinkExpired         bool
	ForgotURL           string // set when LinkExpired
	BuyURL              string
}

func (r *Renderer) welcomeView(w Welcome) welcomeView {
	v := welcomeView{Email: w.Email, Organization: w.Organization, Business: w.AccountKind == "business",
		LinkExpired: w.LinkExpired, BuyURL: r.site.BaseURL + "/buy"}
	if w.LinkExpired {
		v.ForgotURL = r.site.BaseURL + w.ForgotPath()
	}
	if w.SetPasswordPath != "" {
		v.SetPasswordURL = r.site.BaseURL + w.SetPasswordPath
		v.ExpiresDate, v.ExpiresTime = formatDate(w.ExpiresAt), formatUTCTime(w.ExpiresAt)
	}
	return v
}

// NewRenderer parses every template.
func NewRenderer(site Site) (*Renderer, error) {
	site.BaseURL = strings.TrimRight(site.BaseURL, "/")
	r := &Renderer{site: site, mails: map[string]mailTemplates{}, bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
	layout, err := htmltemplate.New("layout.html.tmpl").Funcs(funcs).ParseFS(templateFS, "templates/layout.html.tmpl")
	if err != nil {
		return nil, err
	}
	for _, name := range Templates {
		t, err := texttemplate.New(name).Funcs(funcs).Option("missingkey=error").ParseFS(templateFS, "templates/"+name+".subject.tmpl", "templates/"+name+".txt.tmpl")
		if err != nil {
			return nil, err
		}
		h, err := htmltemplate.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html.tmpl")
		if err != nil {
			return nil, err
		}
		r.mails[name] = mailTemplates{subject: t.Lookup(name + ".subject.tmpl"), text: t.Lookup(name + ".txt.tmpl"), html: h}
	}
	return r, nil
}

// Render answers the subject and both bodies of template name for data.
func (r *Renderer) Render(name string, data any) (subject, text, html string, err error) {
	t, ok := r.mails[name]
	if !ok {
		return "", "", "", fmt.Errorf("no template %q", name)
	}
	v := view{Site: r.site, Data: data}
	b := r.bufs.Get().(*bytes.Buffer)
	defer func() {
		b.Reset()
		r.bufs.Put(b)
	}()
	if err := t.subject.Execute(b, v); err != nil {
		return "", "", "", fmt.Errorf("render %s subject: %w", name, err)
	}
	subject = oneLine(b.Bytes())
	b.Reset()
	// Both bodies go into the buffer one after the other and out of it as one string:
	// one copy for the two.
	if err := t.text.Execute(b, v); err != nil {
		return "", "", "", fmt.Errorf("render %s text: %w", name, err)
	}
	n := b.Len()
	if err := t.html.Execute(b, page{Site: v.Site, Data: v.Data, Subject: subject}); err != nil {
		return "", "", "", fmt.Errorf("render %s html: %w", name, err)
	}
	bodies := b.String()
	return subject, bodies[:n], bodies[n:], nil
}

// oneLine is s with its runs of white space (strings.Fields') made one space, and none at
// either end: a subject is one line, however its template is laid out.
func oneLine(s []byte) string {
	var b strings.Builder
	b.Grow(len(s))
	for f := range bytes.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(f)
	}
	return b.String()
}
