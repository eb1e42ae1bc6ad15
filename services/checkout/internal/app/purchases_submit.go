package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// GiftDetail is a gift order's own data, handed to GiftFulfiller.
type GiftDetail struct {
	AmountsInCents []int64 `json:"amountsInCents"`
	RecipientEmail string  `json:"recipientEmail,omitempty"`
	RecipientName  string  `json:"recipientName,omitempty"`
	Message        string  `json:"message,omitempty"`
}

// GiftFulfiller issues a gift order's certificates (one per amount, a fresh code each) and
// answers one gift-certificate-issued event per certificate, which notifications mails.
type GiftFulfiller struct {
	// NewCode draws a code; gift.MustNewCode unless a test sets it.
	NewCode func() string
}

// Fulfil implements order.Fulfiller.
func (f GiftFulfiller) Fulfil(ctx context.Context, tx order.Tx, o *order.Placed) ([]kafka.Event, error) {
	var d GiftDetail
	if err := json.Unmarshal(o.Detail, &d); err != nil {
		return nil, fmt.Errorf("decode gift order: %w", err)
	}
	newCode := f.NewCode
	if newCode == nil {
		newCode = gift.MustNewCode
	}
	var certs []gift.Certificate
	var evs []kafka.Event
	for _, amount := range d.AmountsInCents {
		c := gift.Certificate{ID: uuid.NewString(), Code: newCode(), Currency: o.Currency, AmountInCents: amount, BuyerEmail: o.Email,
			BuyerAccountID: o.AccountID, RecipientEmail: d.RecipientEmail, RecipientName: d.RecipientName, Message: d.Message, OrderID: o.InvoiceID}
		certs = append(certs, c)
		b, err := proto.Marshal(&eventsv1.GiftCertificateIssued{CertificateId: c.ID, Code: c.Code,
			Balance: &eventsv1.Money{AmountInCents: amount, Currency: o.Currency}, BuyerEmail: o.Email, BuyerAccountId: o.AccountID,
			RecipientEmail: d.RecipientEmail, RecipientName: d.RecipientName, Message: d.Message, OrderId: o.InvoiceID,
			IssuedAt: timestamppb.New(o.CreatedAt)})
		if err != nil {
			return nil, fmt.Errorf("encode gift certificate issued: %w", err)
		}
		evs = append(evs, kafka.Event{Topic: events.TopicGiftCertificateIssued, Key: c.ID, Payload: b})
	}
	if err := tx.IssueGifts(ctx, certs); err != nil {
		return nil, err
	}
	return evs, nil
}

// OneOffDetail is a one-off order's own data (the preset cart it came from, and whether
// the buyer ticked the marketing checkbox).
type OneOffDetail struct {
	CartID           string `json:"cartId"`
	MarketingConsent bool   `json:"marketingConsent,omitempty"`
}

// OneOffFulfiller has nothing of its own to write: the order and its invoice lines are the
// purchase (order-completed tells fulfilment what to ship). A ticked marketing checkbox
// becomes a marketing-consent-given event in the order's transaction: identity owns the
// preference, and the outbox delivers it (retried until identity has it) only if the order
// commits, while a slow or failing identity never holds up or fails a paid order.
type OneOffFulfiller struct{}

// Fulfil implements order.Fulfiller.
func (OneOffFulfiller) Fulfil(_ context.Context, _ order.Tx, o *order.Placed) ([]kafka.Event, error) {
	var d OneOffDetail
	if len(o.Detail) > 0 {
		if err := json.Unmarshal(o.Detail, &d); err != nil {
			return nil, fmt.Errorf("decode one-off order: %w", err)
		}
	}
	if !d.MarketingConsent || o.AccountID == "" {
		return nil, nil
	}
	ev, err := marketingConsentGiven(o.AccountID, o)
	if err != nil {
		return nil, err
	}
	return []kafka.Event{ev}, nil
}

// marketingConsentGiven is the event that tells identity, the preference's owner, that the
// buyer's account consented to marketing e-mail with order o (written in o's transaction).
func marketingConsentGiven(account string, o *order.Placed) (kafka.Event, error) {
	b, err := proto.Marshal(&eventsv1.MarketingConsentGiven{AccountId: account, Email: o.Email, OrderId: o.InvoiceID,
		Source: o.Kind, GivenAt: timestamppb.New(o.CreatedAt)})
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode marketing consent given: %w", err)
	}
	return kafka.Event{Topic: events.TopicMarketingConsentGiven, Key: account, Payload: b}, nil
}

// PurchaseSubmit is a gift or one-off submit besides its order.
type PurchaseSubmit struct {
	Key, RequestHash string
	Payment          order.Payment
	Caller           domain.Caller
	// Client is the client's key for limits (auth.ClientKey), Addr its address.
	Client, Addr   string
	RecaptchaValue string
}

func (p *Purchases) human(ctx context.Context, value, client string) []string {
	if p.svc.verifier == nil {
		return nil
	}
	ok, err := p.svc.verifier.Verify(ctx, value, client)
	switch {
	case err != nil:
		return []string{MsgCaptchaError}
	case !ok:
		return []string{humanRefused(value)}
	}
	return nil
}

// humanRefused is the message for a value the verifier refused: none given is a box not
// ticked ('Please verify you are a human.'); one given but refused (expired, reused,
// forged) is the captcha error, on which the page clears the widget for a new tick.
func humanRefused(value string) string {
	if strings.TrimSpace(value) == "" {
		return MsgHuman
	}
	return MsgCaptchaError
}

// invalid is a refused submit with its messages (400).
func invalid(problems []string) error {
	return &SubmitError{Code: errs.Invalid, Message: problems[0], Errors: problems}
}

// SubmitGift buys gift certificates: the form checked as at validate (the e-mail always),
// the card fields, then the order pipeline (charge, one write, events). No login is
// needed: the order belongs to the e-mail's account, created at identity when new.
func (p *Purchases) SubmitGift(ctx context.Context, o gift.Order, recipient GiftDetail, sub PurchaseSubmit) (*order.Placed, error) {
	return p.svc.placeOnce(ctx, sub.Key, sub.RequestHash, sub.Payment, func(ctx context.Context, key string) (*order.Placed, error) {
		sub.Key = key
		return p.submitGift(ctx, o, recipient, sub)
	})
}

func (p *Purchases) submitGift(ctx context.Context, o gift.Order, recipient GiftDetail, sub PurchaseSubmit) (*order.Placed, error) {
	cat, err := p.svc.Catalog()
	if err != nil {
		return nil, err
	}
	if sub.Caller.LoggedIn {
		o.Email = sub.Caller.Email
	}
	c := gift.Check(cat, o, true)
	problems := append(append([]string(nil), c.Errors...), gift.CheckPayment(sub.Payment.Nonce, sub.Payment.CardholderName, c.Zip, c.Country)...)
	problems = append(problems, p.human(ctx, sub.RecaptchaValue, sub.Addr)...)
	r, bad := gift.CheckRecipient(gift.Recipient{Email: recipient.RecipientEmail, Name: recipient.RecipientName, Message: recipient.Message})
	recipient.RecipientEmail, recipient.RecipientName, recipient.Message = r.Email, r.Name, r.Message
	problems = append(problems, bad...)
	if len(problems) > 0 {
		return nil, invalid(problems)
	}
	ctx = p.svc.humanPassed(ctx)
	accountID, err := p.account(ctx, sub.Caller, c.Email)
	if err != nil {
		return nil, err
	}
	inv := gift.Price(c)
	recipient.AmountsInCents = c.Amounts
	detail, err := json.Marshal(recipient)
	if err != nil {
		return nil, fmt.Errorf("encode gift order: %w", err)
	}
	pu := &order.Purchase{Kind: order.KindGift, AccountID: accountID, Email: c.Email, Currency: inv.Currency,
		SubtotalInCents: inv.SubtotalInCents, TaxInCents: inv.TaxInCents, TotalInCents: inv.TotalInCents,
		TaxLabel: inv.Tax.Label, TaxJurisdiction: inv.Tax.Jurisdiction, PaymentMethod: "CREDIT_CARD",
		BillingName: sub.Payment.CardholderName, BillingCountry: c.Country, BillingZip: c.Zip, Detail: detail}
	for _, l := range inv.Lines {
		pu.Lines = append(pu.Lines, order.Line{Type: l.Type, Description: l.Description, Reason: "gift certificate",
			UnitAmountInCents: l.UnitAmountInCents, AmountInCents: l.UnitAmountInCents, Key: l.Key})
	}
	card, err := p.giftCard(ctx, sub.Payment)
	if err != nil {
		return nil, err
	}
	subjects := giftSubjects(card, c.Email, recipient.RecipientEmail, auth.SessionRef(auth.Token(ctx)), sub.Client)
	release, err := p.reserveGift(ctx, subjects, c.Currency, inv.TotalInCents) // gift_caps.go
	if err != nil {
		return nil, err
	}
	placed, err := p.svc.orders.Place(ctx, sub.Key, sub.RequestHash, pu, sub.Payment)
	if release != nil {
		release(err)
	}
	return placed, err
}

// account answers the buyer's account: the session's, or the e-mail's (created at
// identity when new). A gift buyer need not log in: paying for certificates changes
// nothing of the account, and the receipt goes to the e-mail and to the browser that paid.
func (p *Purchases) account(ctx context.Context, who domain.Caller, email string) (string, error) {
	if who.LoggedIn {
		return domain.ExtractAccountID(who.AccountID), nil
	}
	if p.svc.accounts == nil {
		return "", errs.E(errs.Unavailable, "accounts cannot be created: identity is not configured")
	}
	id, _, err := p.svc.accounts.ProvisionAccount(ctx, email, false)
	return id, err
}

// SubmitOneOff pays a one-off configuration of a preset cart: priced as at preview, then
// the order pipeline. The buyer is the session's, or a guest's e-mail (its account made as
// /buy makes a guest's: guestAccount), with the defences of every card submit: human
// verification here, and payments' decline limits counted against the paying card, address
// and session. With a nonce the card fields are required; with the saved card (sub.Payment
// carries its token, a session's only) the billing ZIP is.
func (p *Purchases) SubmitOneOff(ctx context.Context, in OneOffInput, sub PurchaseSubmit, savedCard bool) (*order.Placed, error) {
	if err := p.oneOffOn(); err != nil {
		return nil, err
	}
	return p.svc.placeOnce(ctx, sub.Key, sub.RequestHash, sub.Payment, func(ctx context.Context, key string) (*order.Placed, error) {
		sub.Key = key
		return p.submitOneOff(ctx, in, sub, savedCard)
	})
}

func (p *Purchases) submitOneOff(ctx context.Context, in OneOffInput, sub PurchaseSubmit, savedCard bool) (*order.Placed, error) {
	guest := !sub.Caller.LoggedIn
	if guest && (savedCard || sub.Payment.Token != "") {
		// A stored method pays only for its owner; without a session none is the buyer's
		// (as /buy refuses it), so it is refused before an account is made for the e-mail.
		err := errs.E(errs.Forbidden, "%s", MsgMethodRefused)
		p.svc.logRefused(ctx, err, sub.Caller, sub.Addr, "")
		return nil, err
	}
	sales := in.salesMode(sub.Caller)
	in.Caller = sub.Caller
	if sales {
		in.Caller = domain.Caller{} // the customer's cart: the configuration's e-mail, not the staff's
	}
	if guest {
		in.AccountID = "" // a guest's account is the e-mail's (guestAccount), never one the body names
	}
	pv, err := p.PreviewOneOff(ctx, in)
	if err != nil {
		return nil, err
	}
	problems := append([]string(nil), pv.Invoice.Errors...)
	if !domain.ValidEmail(pv.Email) {
		problems = append(problems, oneoff.MsgEmail)
	}
	problems = append(problems, oneoff.CheckConsent(pv.Cart, in.Order.GdprCompliant)...)
	if sales && sub.Payment.Token == "" {
		problems = append(problems, MsgSalesModeReader)
	}
	if savedCard {
		if pv.Cart.Zip == "" {
			problems = append(problems, oneoff.MsgZipcode)
		}
		if sub.Payment.Token == "" {
			problems = append(problems, MsgCardBlank)
		}
	} else {
		problems = append(problems, gift.CheckPayment(sub.Payment.Nonce, sub.Payment.CardholderName, pv.Cart.Zip, pv.Cart.Country)...)
	}
	problems = append(problems, p.human(ctx, sub.RecaptchaValue, sub.Addr)...)
	if len(problems) > 0 {
		return nil, invalid(problems)
	}
	ctx = p.svc.humanPassed(ctx)
	accountID := pv.AccountID
	switch {
	case sales:
		if accountID, err = p.account(ctx, domain.Caller{}, pv.Email); err != nil {
			return nil, err
		}
	case guest:
		// Spec 001 §1: a visitor enters an e-mail and pays by card; the account is made as
		// /buy makes a guest's, once the form and the human verification have passed.
		if accountID, err = p.svc.guestAccount(ctx, pv.Email, in.Order.EuCustomer || pv.Cart.EuConsentRequired); err != nil {
			return nil, err
		}
	}
	inv := pv.Invoice
	// The consent is the buyer's own to give: staff selling in sales mode cannot give it.
	detail, _ := json.Marshal(OneOffDetail{CartID: pv.Preset.UUID, MarketingConsent: in.MarketingConsent && !sales})
	pu := &order.Purchase{Kind: order.KindOneOff, AccountID: accountID, Email: pv.Email, Currency: inv.Currency,
		SubtotalInCents: inv.SubtotalInCents, TaxInCents: inv.TaxInCents, TotalInCents: inv.TotalInCents,
		TaxLabel: inv.Tax.Label, TaxJurisdiction: inv.Tax.Jurisdiction, ReverseCharge: inv.Tax.ReverseCharge, TaxRatePPM: inv.Tax.ChargedPPM(), PaymentMethod: "CREDIT_CARD",
		BillingName: sub.Payment.CardholderName, BillingCountry: pv.Cart.Country, BillingZip: pv.Cart.Zip, BusinessID: pv.Cart.BusinessID,
		PromoCodes: promoCodesOf(inv), Detail: detail}
	for _, l := range inv.Lines {
		pu.Lines = append(pu.Lines, order.Line{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType, Description: l.Description,
			Reason: "one-off purchase", UnitAmountInCents: l.UnitAmountInCents, Quantity: l.Quantity, AmountInCents: l.AmountInCents, Key: l.Key})
	}
	if sales {
		pu.SellerAccountID = domain.ExtractAccountID(sub.Caller.AccountID)
		p.svc.log.InfoContext(ctx, "sales-mode purchase", "seller", pu.SellerAccountID, "account", accountID, "reader", in.ReaderSerialNumber)
	}
	placed, err := p.svc.orders.Place(ctx, sub.Key, sub.RequestHash, pu, sub.Payment)
	p.svc.logRefused(ctx, err, sub.Caller, sub.Addr, accountID)
	return placed, err
}

// promoCodesOf answers the promotions that took something off (redeemed with the order).
func promoCodesOf(inv oneoff.Invoice) []string {
	var out []string
	for _, l := range inv.Lines {
		if l.Type == pricing.ItemPlanDiscount {
			out = append(out, strings.TrimPrefix(l.Key, pricing.ItemPlanDiscount+":"))
		}
	}
	return out
}

// GiftsOfOrder answers the certificates a gift order issued.
func (p *Purchases) GiftsOfOrder(ctx context.Context, invoiceID string) ([]gift.Certificate, error) {
	certs, err := p.carts.GiftsOfOrder(ctx, invoiceID)
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "gift certificates are unavailable; try again")
	}
	return certs, nil
}
