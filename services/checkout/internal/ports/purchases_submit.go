package ports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// idempotencyKey answers the Idempotency-Key header, or else the body's key.
func idempotencyKey(ctx context.Context, body string) string {
	if v := metadata.ValueFromIncomingContext(ctx, mdIdempotencyKey); len(v) > 0 && strings.TrimSpace(v[0]) != "" {
		return strings.TrimSpace(v[0])
	}
	return strings.TrimSpace(body)
}

// hashOf identifies a submit's body (its key and payment cleared: payment_hash.go) and
// caller, so that a key is only reused for the same request.
func hashOf(m proto.Message, caller string) string {
	var b []byte
	if m != nil {
		b, _ = proto.MarshalOptions{Deterministic: true}.Marshal(m)
	}
	h := sha256.Sum256(append(b, []byte("|"+strings.ToLower(caller))...))
	return hex.EncodeToString(h[:])
}

// giftHash is the request hash of a gift submit.
func giftHash(req *checkoutv1.SubmitGiftRequest, caller string) string {
	defer giftWithoutPayment(req)()
	return hashOf(req, caller)
}

// oneOffHash is the request hash of a one-off submit.
func oneOffHash(req *checkoutv1.SubmitOneOffRequest, caller string) string {
	defer oneOffWithoutPayment(req)()
	return hashOf(req, caller)
}

func (s *GRPC) SubmitGift(ctx context.Context, req *checkoutv1.SubmitGiftRequest) (*checkoutv1.SubmitGiftResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	who, cl := sessionCaller(ctx), s.caller(ctx)
	sub := app.PurchaseSubmit{Key: idempotencyKey(ctx, req.GetIdempotencyKey()), RequestHash: giftHash(req, who.AccountID),
		Payment: order.Payment{Nonce: req.GetNonce(), CardholderName: req.GetCardholderName()}, Caller: who,
		Client: cl.Client, Addr: cl.Addr, RecaptchaValue: req.GetRecaptchaValue()}
	o := gift.Order{Values: values(req.GetGiftCertValues()), Email: req.GetEmail(), Zip: req.GetZipcode(), Country: req.GetCountry(), Currency: req.GetCurrency()}
	r := req.GetRecipient()
	placed, err := p.SubmitGift(ctx, o, app.GiftDetail{RecipientEmail: r.GetEmail(), RecipientName: r.GetName(), Message: r.GetMessage()}, sub)
	if err != nil {
		return nil, refusal(err)
	}
	out, err := s.purchaseSuccess(ctx, placed)
	if err != nil {
		return nil, err
	}
	certs, err := p.GiftsOfOrder(ctx, placed.InvoiceID)
	if err != nil {
		return nil, err
	}
	out.Certificates = issuedCertificates(certs)
	return &checkoutv1.SubmitGiftResponse{Purchase: out}, nil
}

func (s *GRPC) SubmitOneOff(ctx context.Context, req *checkoutv1.SubmitOneOffRequest) (*checkoutv1.SubmitOneOffResponse, error) {
	p, err := s.purchasesOrUnimplemented()
	if err != nil {
		return nil, err
	}
	who, cl := sessionCaller(ctx), s.caller(ctx)
	c := req.GetConfiguration()
	pay := order.Payment{Nonce: req.GetNonce(), CardholderName: c.GetCardholderName()}
	if req.GetUseSavedCard() {
		pay = order.Payment{Token: req.GetPaymentMethodToken(), CardholderName: c.GetCardholderName()}
	}
	sub := app.PurchaseSubmit{Key: idempotencyKey(ctx, req.GetIdempotencyKey()), RequestHash: oneOffHash(req, who.AccountID),
		Payment: pay, Caller: who, Client: cl.Client, Addr: cl.Addr, RecaptchaValue: c.GetRecaptchaValue()}
	in := oneOffInput(c)
	in.ClientAddr = sub.Client
	in.MarketingConsent = req.GetMarketingConsent()
	placed, err := p.SubmitOneOff(ctx, in, sub, req.GetUseSavedCard())
	if err != nil {
		return nil, refusal(err)
	}
	out, err := s.purchaseSuccess(ctx, placed)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.SubmitOneOffResponse{Purchase: out}, nil
}

// purchaseSuccess answers a placed order as the payment success of spec 001 §7, and gives
// the paying browser its receipt cookie.
func (s *GRPC) purchaseSuccess(ctx context.Context, o *order.Placed) (*checkoutv1.Purchase, error) {
	_ = grpc.SetHeader(ctx, metadata.Pairs(mdReceipt, o.InvoiceID+"="+s.svc.ReceiptToken(o.InvoiceID)))
	inv, err := placedInvoice(o)
	if err != nil {
		return nil, err
	}
	return &checkoutv1.Purchase{Status: "ok", AccountId: o.AccountID, RedirectUrl: order.ReceiptURL(o.InvoiceID), Invoice: inv,
		InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, OrderId: o.InvoiceID, GoogleConversionCodes: []string{}}, nil
}

// issuedCertificates answers certificates as the wire shows them: masked, never the code.
func issuedCertificates(certs []gift.Certificate) []*checkoutv1.IssuedCertificate {
	var out []*checkoutv1.IssuedCertificate
	for _, c := range certs {
		out = append(out, &checkoutv1.IssuedCertificate{CertificateId: c.ID, MaskedCode: c.Hint, BalanceInCents: ptr(int32(c.AmountInCents)),
			Currency: c.Currency, RecipientEmail: c.RecipientEmail, RecipientName: c.RecipientName})
	}
	return out
}
