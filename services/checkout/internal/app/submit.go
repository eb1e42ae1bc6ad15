package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Accounts is identity as submit uses it: a new buyer's account is created at checkout.
type Accounts interface {
	// ProvisionAccount answers the e-mail's account, creating it when there is none, and
	// whether an anonymous buyer may buy for it (new, or created at checkout and never
	// activated: a retry after a declined card).
	ProvisionAccount(ctx context.Context, email string, isEU bool) (accountID string, open bool, err error)
}

// HumanVerifier checks the human-verification value of a submit (reCAPTCHA in
// production). DevVerifier accepts any non-empty value.
type HumanVerifier interface {
	Verify(ctx context.Context, value, clientIP string) (bool, error)
}

// DevVerifier is the development HumanVerifier: a value is present.
type DevVerifier struct{}

// Verify accepts any non-empty value.
func (DevVerifier) Verify(_ context.Context, value, _ string) (bool, error) { return value != "", nil }

// HumanWidget is the human-verification widget the card-payment pages load: a public site
// key and the script that renders it (reCAPTCHA's api.js, or the development verifier's).
type HumanWidget struct {
	SiteKey, ScriptURL string
}

// HumanVerification answers whether submits need the human-verification value and, when
// they do, the widget that gives it: the pages show what the server checks.
func (s *Service) HumanVerification() (required bool, w HumanWidget) {
	if s.verifier == nil {
		return false, HumanWidget{}
	}
	return true, s.widget
}

// humanPassed tells payments, with the client checkout forwards, that the submit in ctx
// passed human verification (when it is on: a submit that did not pass never charges).
// Past its decline limit payments lets such a card attempt go on to its human limit.
func (s *Service) humanPassed(ctx context.Context) context.Context {
	if s.verifier == nil {
		return ctx
	}
	return auth.HumanVerified(ctx)
}

// Submit is a submit request besides its configuration.
type Submit struct {
	// Key is the Idempotency-Key; RequestHash identifies the request's body and caller.
	Key, RequestHash string
	QuoteID          string
	Payment          order.Payment
	Deeplink         string
}

// Messages of submit (spec 000 §5 for the payment fields).
const (
	MsgCardBlank    = rules.MsgCardBlank
	MsgNameBlank    = rules.MsgNameBlank
	MsgHuman        = "Please verify you are a human."
	MsgCaptchaError = "We are having problems validating your form."
	MsgQuoteChanged = "The price of your order changed. Please review the new total and submit again."
	// MsgSalesModeReader: a sales-mode purchase is paid with the card reader's method.
	MsgSalesModeReader = "In sales mode the customer's card is read by the card reader."
)

// ReasonQuoteChanged names the refusal of a submit whose quote no longer prices the order.
const ReasonQuoteChanged = "QUOTE_CHANGED"

// SubmitError is a refused submit that carries more than a code and a message: every
// validation problem, requireLogin, and the fresh preview (a subscription submit's
// refusals and QUOTE_CHANGED). It is an
// *errs.Error (Unwrap); the transports add the preview in their own terms.
type SubmitError struct {
	Code         errs.Code
	Reason       string
	Message      string
	Errors       []string
	RequireLogin bool
	Preview      *pricing.Preview
}

func (e *SubmitError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap is the refusal as the one error, without the preview (a domain value).
func (e *SubmitError) Unwrap() error {
	return &errs.Error{Code: e.Code, Reason: e.Reason, Message: e.Message, Errors: e.Errors, RequireLogin: e.RequireLogin}
}

// SubmitResult is a placed (or replayed) order.
type SubmitResult struct {
	Order    *order.Placed
	Deeplink string
}

// Submit buys a configuration (see checkout.proto SubmitInvoice). A key seen before
// answers its first outcome without validating or pricing again.
func (s *Service) Submit(ctx context.Context, in domain.Input, sub Submit, caller Caller) (*SubmitResult, error) {
	sub.Deeplink = s.deeplink(ctx, sub.Deeplink)
	placed, err := s.placeOnce(ctx, sub.Key, sub.RequestHash, sub.Payment, func(ctx context.Context, key string) (*order.Placed, error) {
		sub.Key = key
		if sub.Payment.Token != "" && !in.Caller.LoggedIn {
			// A stored method pays only for its owner (payments decides, with the buyer's
			// session); without a session none can be the buyer's, so it is refused before an
			// account is created for the e-mail.
			err := errs.E(errs.Forbidden, "%s", MsgMethodRefused)
			s.logRefused(ctx, err, in.Caller, caller.Addr, "")
			return nil, err
		}
		pu, err := s.priceForSubmit(ctx, in, sub, caller)
		if err != nil {
			return nil, err
		}
		ctx = s.humanPassed(ctx)
		placed, err := s.orders.Place(ctx, sub.Key, sub.RequestHash, pu, sub.Payment)
		s.logRefused(ctx, err, in.Caller, caller.Addr, pu.AccountID)
		return placed, err
	})
	if err != nil {
		return nil, err
	}
	return &SubmitResult{Order: placed, Deeplink: sub.Deeplink}, nil
}

// scopedKey binds an Idempotency-Key to its caller, as Stripe scopes keys to the account
// that made them (issue 41: another anonymous browser sending the same key and body got the
// first buyer's answer and receipt cookie): the account of a logged-in caller, else the
// session, else the client's address key. Another caller's same key is a new request. A
// call without a recorded client (a unit test, an internal caller) keeps the key as sent.
func scopedKey(ctx context.Context, key string) string {
	var scope string
	if who, ok := auth.CallerFrom(ctx); ok && who.AccountUUID != "" {
		scope = "account:" + strings.ToLower(who.AccountUUID)
	} else if c, ok := auth.ClientFrom(ctx); ok && c.Session != "" {
		scope = "session:" + c.Session
	} else if ok && c.Addr != "" {
		scope = "addr:" + clientaddr.Key(c.Addr)
	}
	if scope == "" {
		return key
	}
	sum := sha256.Sum256([]byte("hangar idempotency scope\x00" + scope))
	return key + "@" + hex.EncodeToString(sum[:8])
}

// placeOnce is every submit's way to the order pipeline (subscription, gift, one-off): it
// checks the Idempotency-Key, looks the key up once, and answers a key seen before with
// its first outcome (order.Pipeline.Resume: the order, the decline, or the pending order
// taken over) without running fresh; a new key runs fresh, which validates, prices and
// places. Concurrent submits of one key and request in this process share one execution
// (one look-up, one validation, one account creation, one charge), the only such sharing
// on the path; across processes the key's row decides. A shared answer is Replayed.
func (s *Service) placeOnce(ctx context.Context, key, requestHash string, pay order.Payment,
	fresh func(ctx context.Context, key string) (*order.Placed, error)) (*order.Placed, error) {
	if strings.TrimSpace(key) == "" || len(key) > 200 {
		return nil, errs.Field("Idempotency-Key", "an Idempotency-Key header of 1 to 200 characters is required")
	}
	key = scopedKey(ctx, key)
	if s.orders == nil {
		return nil, errs.E(errs.Unavailable, "orders are not configured")
	}
	v, err, shared := s.submits.Do(key+"\x00"+requestHash, func() (any, error) {
		// The order goes on when the buyer's connection drops: the charge may be under way.
		ctx := context.WithoutCancel(ctx)
		seen, err := s.orders.Lookup(ctx, key)
		if err != nil {
			return nil, err
		}
		if seen != nil {
			return s.orders.Resume(ctx, seen, requestHash, pay)
		}
		return fresh(ctx, key)
	})
	if err != nil {
		return nil, err
	}
	placed := v.(*order.Placed)
	if shared && placed != nil && !placed.Replayed {
		o := *placed
		o.Replayed = true
		placed = &o
	}
	return placed, nil
}

// validateForSubmit validates as Validate does (the page does not ask /validate first).
// A quote this process issued for this very configuration and caller, from the catalogue
// and tax table in use, unexpired and depending on no account, subscription or code
// (quotedPreview), is used as priced: its lines and totals, no second pricing. Any other
// quote is priced again, in the quote's currency (no second look-up of the visitor's
// default: cookie, location; a forged currency prices another hash and is refused), and
// what the quote cannot prove is read fresh: the subscription and the licences its users
// hold (allocation), the account's balance, gift certificates, promotion limits.
func (s *Service) validateForSubmit(ctx context.Context, in domain.Input, quoteID string, caller Caller) (*Validation, error) {
	if pv, ok := s.quotedPreview(quoteID, in, caller); ok {
		if err := s.mayName(ctx, in); err != nil {
			return nil, err
		}
		return s.check(ctx, in, pv)
	}
	if q, ok := pricing.ParseQuote(quoteID); ok && strings.TrimSpace(in.Currency) == "" && !in.Military && !in.MilitaryIntl {
		in.Currency = q.Currency
	}
	return s.validate(ctx, in, caller)
}

// priceForSubmit validates and prices once (validateForSubmit), checks the payment fields
// and the human verification, and holds the price to the quote. Then it resolves the
// buyer's account.
func (s *Service) priceForSubmit(ctx context.Context, in domain.Input, sub Submit, caller Caller) (*order.Purchase, error) {
	v, err := s.validateForSubmit(ctx, in, sub.QuoteID, caller)
	if err != nil {
		return nil, err
	}
	problems := append([]string(nil), v.Errors...)
	// The payment form as gift and one-off check it (a card is needed for a zero total
	// too: the renewal charges it); the tax is computed from this billing address.
	for _, p := range rules.ValidatePayment(rules.Payment{Nonce: sub.Payment.Nonce, ExistingMethod: sub.Payment.Token != "",
		CardholderName: in.CardholderName, Zip: v.Preview.Cart.Zip, Country: v.Preview.Cart.Country}) {
		if !contains(problems, p) {
			problems = append(problems, p)
		}
	}
	if in.SalesMode() && sub.Payment.Token == "" && !contains(problems, MsgCardBlank) {
		// Staff pay for the customer with the card the reader collected, never a typed one.
		problems = append(problems, MsgSalesModeReader)
	}
	if s.verifier != nil && strings.TrimSpace(in.RecaptchaValue) == "" && !contains(problems, MsgHuman) {
		problems = append(problems, MsgHuman)
	}
	// The page asks no /validate first, so a tick is verified only for an order that is
	// otherwise ready: a token is good once, and a form refused for another reason keeps it.
	if s.verifier != nil && len(problems) == 0 && !v.RequireLogin {
		ok, err := s.verifier.Verify(ctx, in.RecaptchaValue, caller.Addr)
		if err != nil {
			// The verifier's errors never carry its secret.
			s.log.WarnContext(ctx, "human verification unavailable", "err", err.Error())
			problems = append(problems, MsgCaptchaError)
		} else if !ok {
			problems = append(problems, humanRefused(in.RecaptchaValue))
		}
	}
	// A refusal carries the fresh preview: its error codes, tail allocations and promotion
	// notices are what the page shows beside the messages.
	if v.RequireLogin {
		return nil, &SubmitError{Code: errs.Unauthorized, Message: problems[len(problems)-1], Errors: problems, RequireLogin: true, Preview: v.Preview}
	}
	if slices.Contains(v.Preview.Cart.ErrorCodes, rules.CodeCurrencyNotAllowed) {
		return nil, &SubmitError{Code: errs.Invalid, Reason: rules.CodeCurrencyNotAllowed, Message: rules.MsgCurrencyNotAllowed, Errors: problems,
			Preview: v.Preview}
	}
	if len(problems) > 0 {
		return nil, &SubmitError{Code: errs.Invalid, Message: problems[0], Errors: problems, Preview: v.Preview}
	}
	pv := v.Preview
	if !s.quoteValid(sub.QuoteID, pv) {
		return nil, &SubmitError{Code: errs.Conflict, Reason: ReasonQuoteChanged, Message: MsgQuoteChanged, Preview: pv}
	}
	accountID, err := s.buyerAccount(ctx, in, pv)
	if err != nil {
		return nil, err
	}
	pu, err := s.subscriptionPurchase(pv, accountID, forCustomer(in))
	if err == nil {
		err = s.businessOrganization(ctx, pu, pv, in.OrganizationName)
	}
	if err == nil && in.SalesMode() {
		// The seller is kept with the purchase (the submission's stored purchase) and logged.
		pu.SellerAccountID = domain.ExtractAccountID(in.Caller.AccountID)
		s.log.InfoContext(ctx, "sales-mode purchase", "seller", pu.SellerAccountID, "account", accountID, "reader", in.ReaderSerialNumber)
	}
	return pu, err
}

// MsgMethodRefused answers a stored payment method offered for a purchase it may not pay
// (payments' refusal, in its words).
const MsgMethodRefused = "This stored payment method cannot be used for this purchase."

// logRefused records a submit whose stored payment method was refused (err from payments
// or the submit itself): the caller's account and address and the account that was
// buying, never the method or card data. Other errors are not logged here.
func (s *Service) logRefused(ctx context.Context, err error, who domain.Caller, client, account string) {
	if !order.IsRefused(err) {
		return
	}
	s.log.WarnContext(ctx, "stored payment method refused", "caller", domain.ExtractAccountID(who.AccountID), "client", client,
		"account", account)
}

// quoteValid reports whether quoteID is the quote of this very price, issued here and not
// expired.
func (s *Service) quoteValid(quoteID string, pv *pricing.Preview) bool {
	q, ok := pricing.ParseQuote(quoteID)
	if !ok || !s.now().Before(q.Expires) {
		return false
	}
	want := pricing.QuoteID(s.quoteKey, pv.QuoteHash, q.Currency, q.Expires)
	return hmac.Equal([]byte(want), []byte(quoteID))
}

// buyerAccount answers the account the order is for: the session's, the subscription's,
// or a new buyer's account created through identity. An e-mail that already has an
// account at identity must log in first.
func (s *Service) buyerAccount(ctx context.Context, in domain.Input, pv *pricing.Preview) (string, error) {
	if in.SalesMode() {
		return s.customerAccount(ctx, in, pv)
	}
	if in.Caller.LoggedIn {
		if pv.Cart.Existing != nil {
			return pv.Cart.Existing.AccountID, nil
		}
		return domain.ExtractAccountID(in.Caller.AccountID), nil
	}
	return s.guestAccount(ctx, pv.Cart.Email, in.EuCustomer || pv.Cart.EuConsentRequired)
}

// guestAccount is the account of a buyer without a session who typed an e-mail (/buy's
// guest and the one-off cart's, spec 001 §1): created through identity when new, or one
// created at checkout and never activated (a retry after a declined card). An e-mail whose
// account is in use must log in first (401 requireLogin), so a stranger never buys onto it.
// Callers check the order and the human verification first: a refused form creates nothing.
func (s *Service) guestAccount(ctx context.Context, email string, isEU bool) (string, error) {
	if s.accounts == nil {
		return "", errs.E(errs.Unavailable, "accounts cannot be created: identity is not configured")
	}
	id, open, err := s.accounts.ProvisionAccount(ctx, email, isEU)
	if err != nil {
		return "", err
	}
	if !open {
		return "", &SubmitError{Code: errs.Unauthorized, Message: MsgLoginRequired, Errors: []string{MsgLoginRequired}, RequireLogin: true}
	}
	return id, nil
}

// customerAccount is the account of the customer a credit-card admin sells to in sales
// mode: the priced subscription's, else the e-mail's (created when there is none; an
// existing account needs no log-in, the exemption's point).
func (s *Service) customerAccount(ctx context.Context, in domain.Input, pv *pricing.Preview) (string, error) {
	if pv.Cart.Existing != nil {
		return pv.Cart.Existing.AccountID, nil
	}
	if s.accounts == nil {
		return "", errs.E(errs.Unavailable, "accounts cannot be created: identity is not configured")
	}
	id, _, err := s.accounts.ProvisionAccount(ctx, pv.Cart.Email, in.EuCustomer || pv.Cart.EuConsentRequired)
	return id, err
}

// ReceiptToken is the receipt cookie given to the browser that paid and the token of the
// e-mailed receipt link: an HMAC of the invoice id and an expiry under the current receipt
// key (ReceiptKeys), so it needs no storage and every replay of the submit gets one.
func (s *Service) ReceiptToken(invoiceID string) string {
	return s.receipts.Sign(invoiceID, s.now().Add(ReceiptTokenTTL))
}

// ReceiptLink is the receipt's link for the e-mail: it opens the receipt in any browser
// (ports' receipt opener turns its token into the cookie) until the token lapses.
func (s *Service) ReceiptLink(invoiceID string) string {
	return ReceiptOpenPath(invoiceID) + "?token=" + url.QueryEscape(s.ReceiptToken(invoiceID))
}

// ReceiptOpenPath is the route that turns a receipt link's token into the receipt cookie.
func ReceiptOpenPath(invoiceID string) string { return "/buy/api/receipt/" + invoiceID + "/open" }
