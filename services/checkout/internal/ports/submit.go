package ports

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// FullAnswers are the answers the gateway writes with every field (server.EmitDefaults):
// the payment success of spec 000 §7 and spec 001 §7 names its fields, and the page reads
// them even when empty (extension, mobileDeeplink, googleConversionCodes); every answer
// with an invoice (previews, validates, renewal price) carries its errors lists and each
// line's addOnCode (spec 000 §2 Invoice, as submit's lines do) even when empty.
func FullAnswers() []proto.Message {
	return []proto.Message{&checkoutv1.SubmitInvoiceResponse{}, &checkoutv1.SubmitGiftResponse{}, &checkoutv1.SubmitOneOffResponse{}, &checkoutv1.Purchase{},
		&checkoutv1.GetSubscriptionAvionicsResponse{}, &checkoutv1.GetHumanVerificationResponse{},
		&checkoutv1.PreviewInvoiceResponse{}, &checkoutv1.ValidateInvoiceResponse{}, &checkoutv1.ValidateGiftResponse{},
		&checkoutv1.PreviewOneOffResponse{}, &checkoutv1.GetRenewalPriceResponse{}}
}

// Metadata between the handlers and the gateway's forward-response hook. A refusal is an
// error (refusal), never an answer with a status in metadata.
const (
	mdIdempotencyKey = "idempotency-key"
	mdReceipt        = "x-checkout-receipt"
	mdProductCode    = "x-checkout-product-code"
	// ReceiptCookiePrefix + invoice id (no dashes) names the receipt cookie of the browser
	// that paid; it is sent only to that receipt's route.
	ReceiptCookiePrefix = "hangar_receipt_"
)

// GatewayOptions are checkout's grpc-gateway settings: the Idempotency-Key header reaches
// the handler; the receipt cookie is set from response metadata, and no other metadata
// leaves as headers.
func GatewayOptions() []runtime.ServeMuxOption {
	return []runtime.ServeMuxOption{
		runtime.WithIncomingHeaderMatcher(func(k string) (string, bool) {
			if strings.EqualFold(k, "Idempotency-Key") {
				return mdIdempotencyKey, true
			}
			return server.IncomingHeader(k)
		}),
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithForwardResponseOption(forwardResponse),
		server.FormMarshalerOption(),
		// The auto-renew form posts isAutoRenew in the body and productCode in the query,
		// which the gateway does not read for a body "*" route.
		runtime.WithMetadata(func(_ context.Context, r *http.Request) metadata.MD {
			if v := r.URL.Query().Get("productCode"); v != "" && strings.HasSuffix(r.URL.Path, "/auto-renew") {
				return metadata.Pairs(mdProductCode, v)
			}
			return nil
		}),
	}
}

func forwardResponse(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	if v := md.HeaderMD.Get(mdReceipt); len(v) == 1 {
		id, token, _ := strings.Cut(v[0], "=")
		http.SetCookie(w, receiptCookieOf(id, token))
	}
	return nil
}

// SubmitInvoice places the order of a configuration (app.Service.Submit).
func (s *GRPC) SubmitInvoice(ctx context.Context, req *checkoutv1.SubmitInvoiceRequest) (*checkoutv1.SubmitInvoiceResponse, error) {
	c := req.GetConfiguration()
	in, err := s.input(ctx, c)
	if err != nil {
		return nil, err
	}
	key := ""
	if v := metadata.ValueFromIncomingContext(ctx, mdIdempotencyKey); len(v) > 0 {
		key = strings.TrimSpace(v[0])
	}
	sub := app.Submit{Key: key, RequestHash: requestHash(c, in.Caller.AccountID), QuoteID: c.GetQuoteId(),
		Payment:  order.Payment{Nonce: c.GetNonce(), Token: c.GetPaymentMethodToken(), CardholderName: c.GetCardholderName()},
		Deeplink: c.GetDeeplinkOnSuccess()}
	res, err := s.svc.Submit(ctx, in, sub, s.caller(ctx))
	if err != nil {
		return nil, refusal(err)
	}
	o := res.Order
	_ = grpc.SetHeader(ctx, metadata.Pairs(mdReceipt, o.InvoiceID+"="+s.svc.ReceiptToken(o.InvoiceID)))
	inv, err := placedInvoice(o)
	if err != nil {
		return nil, err
	}
	// The receipt of the subscription just written (or, for a retry, read back): the success
	// page shows it without a second request.
	rc, err := s.receiptOf(o)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.SubmitInvoiceResponse{AccountId: o.AccountID, RedirectUrl: order.ReceiptURL(o.InvoiceID), MobileDeeplink: res.Deeplink,
		Invoice: inv, InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, GoogleConversionCodes: []string{}, Receipt: rc}, nil
}

// ReasonDeclined names a payment the processor refused.
const ReasonDeclined = "PAYMENT_DECLINED"

// refusal is the one mapping of checkout's refused purchases (subscription, gift,
// one-off) and of the refusals of preview and validate to the one error: a decline with
// payments' customer message (payments words it: domain.CustomerMessage there); a
// SubmitError with every problem, requireLogin, and the fresh preview it carries.
// Anything else is already an error the transports map.
func refusal(err error) error {
	if d, ok := order.AsDeclined(err); ok {
		msg := firstNonEmptyStr(d.Message, errs.PublicMessage(errs.Declined))
		return &errs.Error{Code: errs.Declined, Reason: ReasonDeclined, Message: msg, Cause: err}
	}
	var se *app.SubmitError
	if !errors.As(err, &se) {
		return err
	}
	e := &errs.Error{Code: se.Code, Reason: se.Reason, Message: se.Message, Errors: se.Errors, RequireLogin: se.RequireLogin, Cause: err}
	if se.Preview != nil {
		pv, perr := previewResponse(se.Preview)
		if perr != nil {
			return perr
		}
		e.Preview = pv
	}
	return e
}

// requestHash identifies a submit's body and caller: the same key may only be reused for
// the same request. The page's counter and cart id do not change what is bought, nor do
// the payment fields (payment_hash.go).
func requestHash(c *checkoutv1.Configuration, caller string) string {
	if c == nil {
		return hashOf(nil, caller)
	}
	defer withoutPayment(c)()
	return hashOf(c, caller)
}

func placedInvoice(o *order.Placed) (*checkoutv1.Invoice, error) {
	out := &checkoutv1.Invoice{Currency: o.Currency, TaxVatText: o.TaxLabel, TaxJurisdiction: o.TaxJurisdiction, ReverseCharge: &o.ReverseCharge}
	var n narrow
	n.totals(out, o.SubtotalInCents, o.TaxInCents, o.TotalInCents)
	n.set(&out.CreditToAccountInCents, o.CreditToAccountInCents)
	for _, l := range o.Lines {
		out.InvoiceItems = append(out.InvoiceItems, n.item(&checkoutv1.InvoiceItem{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType,
			Description: l.Description, Reason: l.Reason, Key: l.Key, BundleAddOnCode: l.BundleAddOnCode, BundleItemType: l.BundleItemType,
			PostTax: ptr(l.PostTax)},
			l.UnitAmountInCents, l.Quantity, l.AmountInCents))
	}
	return out, n.err
}

// GetReceipt answers a receipt to whoever may read it (app.Service.Receipt).
func (s *GRPC) GetReceipt(ctx context.Context, req *checkoutv1.GetReceiptRequest) (*checkoutv1.GetReceiptResponse, error) {
	who, _ := auth.CallerFrom(ctx)
	r := app.Reader{Caller: who, ReceiptToken: receiptCookie(ctx, req.GetInvoiceId())}
	o, err := s.svc.Receipt(ctx, req.GetInvoiceId(), r)
	if err != nil {
		return nil, err
	}
	out, err := s.receiptOf(o)
	if err != nil {
		return nil, err
	}
	if o.Kind == order.KindGift && s.purchases != nil {
		// The gift's ending says where its codes went: to the recipient named, or to the buyer.
		certs, err := s.purchases.GiftsOfOrder(ctx, o.InvoiceID)
		if err != nil {
			return nil, err
		}
		out.Certificates = issuedCertificates(certs)
	}
	return out, nil
}

// receiptOf is an order's receipt with the seller who issued it: GetReceipt's answer and
// a submit's.
func (s *GRPC) receiptOf(o *order.Placed) (*checkoutv1.GetReceiptResponse, error) {
	out, err := receipt(o, loadedCatalog(s.svc))
	if err != nil {
		return nil, err
	}
	out.Seller = &checkoutv1.Seller{Name: s.seller.Name, Address: s.seller.Address, VatNumber: s.seller.VAT}
	return out, nil
}

// receiptCookie reads the receipt cookie of the browser that paid for the invoice.
func receiptCookie(ctx context.Context, invoiceID string) string {
	return cookie(ctx, ReceiptCookiePrefix+strings.ReplaceAll(invoiceID, "-", ""))
}

func firstNonEmptyStr(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
