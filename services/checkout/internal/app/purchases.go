package app

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

// CartStore keeps preconfigured one-off carts and reads issued gift certificates.
type CartStore interface {
	// GiftsOfOrder answers the certificates an order issued.
	GiftsOfOrder(ctx context.Context, orderID string) ([]gift.Certificate, error)
	CreateCart(ctx context.Context, c oneoff.PresetCart) (oneoff.PresetCart, error)
	// Cart answers nil when there is no cart with that id.
	Cart(ctx context.Context, id string) (*oneoff.PresetCart, error)
}

// Purchases are the use cases of the two purchases besides a subscription: gift
// certificates and one-off carts (issue 12). They share the Service's catalogue,
// promotions, accounts, counters and code rate limit.
type Purchases struct {
	svc    *Service
	carts  CartStore
	oneOff bool
}

// FlagOneOff is the feature flag of one-off purchases (spec 001 §2), the same name as in
// the pages' flag map (HANGAR_FEATURES).
const FlagOneOff = "one-off-purchases"

// MsgOneOffOff answers every one-off route while the flag is off (the page goes to /).
const MsgOneOffOff = "One-off purchases are not available."

// NewPurchases builds the gift and one-off use cases over svc. oneOff is the
// one-off-purchases flag: off, the one-off routes answer NotFound.
func NewPurchases(svc *Service, carts CartStore, oneOff bool) *Purchases {
	return &Purchases{svc: svc, carts: carts, oneOff: oneOff}
}

// oneOffOn refuses the one-off use cases while the flag is off: the page is not offered
// then, and the API must not sell what the page hides.
func (p *Purchases) oneOffOn() error {
	if !p.oneOff {
		return errs.E(errs.NotFound, MsgOneOffOff)
	}
	return nil
}

// Staff is the caller of a staff-only use case, from the session.
type Staff struct {
	LoggedIn        bool
	Username        string
	Employee        bool
	CreditCardAdmin bool
}

// GiftValidation is the answer of the gift validation.
type GiftValidation struct {
	Checked   gift.Checked
	Invoice   gift.Invoice
	AccountID string
	Email     string
	// HasSubscription: the e-mail's account has a valid subscription.
	HasSubscription bool
	Counter         int64
}

// ValidateGift checks and prices a gift order. The buyer's account is the session's; the
// e-mail sent is only checked for a valid subscription (the page's e-mail-in-cart check):
// its account id is not answered to a caller who is not that account.
func (p *Purchases) ValidateGift(ctx context.Context, o gift.Order, buyer domain.Caller, counter int64, client string) (*GiftValidation, error) {
	if !buyer.LoggedIn && strings.Contains(o.Email, "@") {
		if err := p.svc.lookupByEmail(ctx, client); err != nil {
			return nil, err
		}
	}
	cat, err := p.svc.Catalog()
	if err != nil {
		return nil, err
	}
	v := &GiftValidation{Checked: gift.Check(cat, o, false)}
	_, problems := gift.CheckRecipient(gift.Recipient{Email: o.RecipientEmail, Name: o.RecipientName, Message: o.Message})
	v.Checked.Errors = append(v.Checked.Errors, problems...)
	v.Invoice = gift.Price(v.Checked)
	v.Email = v.Checked.Email
	if buyer.LoggedIn {
		v.AccountID, v.Email = domain.ExtractAccountID(buyer.AccountID), domain.NormalizeEmail(buyer.Email)
	}
	if v.Email != "" && domain.ValidEmail(v.Email) {
		sub, err := p.svc.store.SubscriptionOf(ctx, "", v.Email)
		if err != nil {
			return nil, errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
		}
		if sub != nil {
			v.HasSubscription = sub.Valid
		}
	}
	v.Counter = NextCounter(counter)
	return v, nil
}

// CreateCart stores a preconfigured one-off cart: staff only (employees and credit-card
// admins); an anonymous caller is Unauthorized, anyone else Forbidden.
func (p *Purchases) CreateCart(ctx context.Context, who Staff, r oneoff.Request, cartType string) (oneoff.PresetCart, error) {
	if err := p.oneOffOn(); err != nil {
		return oneoff.PresetCart{}, err
	}
	switch {
	case !who.LoggedIn:
		return oneoff.PresetCart{}, errs.E(errs.Unauthorized, "Please log in to create a cart.")
	case !oneoff.Staff(who.Employee, who.CreditCardAdmin):
		return oneoff.PresetCart{}, errs.E(errs.Forbidden, "Only staff can create carts.")
	case cartType != "" && cartType != oneoff.CartType:
		return oneoff.PresetCart{}, errs.Field("commerceCartType", "commerceCartType must be ONE_OFF")
	}
	cat, err := p.svc.Catalog()
	if err != nil {
		return oneoff.PresetCart{}, err
	}
	c, err := oneoff.NewPresetCart(cat, r, who.Username)
	if err != nil {
		return c, err
	}
	c, err = p.carts.CreateCart(ctx, c)
	if err != nil {
		return c, errs.Wrap(errs.Unavailable, err, "carts are unavailable; try again")
	}
	return c, nil
}

// Cart answers a preconfigured cart; NotFound for an unknown id.
func (p *Purchases) Cart(ctx context.Context, id string) (*oneoff.PresetCart, error) {
	if err := p.oneOffOn(); err != nil {
		return nil, err
	}
	c, err := p.carts.Cart(ctx, strings.TrimSpace(id))
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "carts are unavailable; try again")
	}
	if c == nil {
		return nil, errs.E(errs.NotFound, "There is no cart %q.", id)
	}
	return c, nil
}

// OneOffInput is a one-off configuration with who is asking.
type OneOffInput struct {
	CartID     string
	Order      oneoff.Order
	AccountID  string
	Counter    int64
	Caller     domain.Caller
	ClientAddr string
	// ReaderSerialNumber: the page is in sales mode (see SubmitOneOff).
	ReaderSerialNumber string
	// MarketingConsent: the buyer ticked the marketing checkbox (submit only).
	MarketingConsent bool
}

// salesMode reports staff selling a cart in sales mode: a credit-card admin's session and
// the sales-mode reader (docs/storefront.md); the cart is then the e-mail's customer's.
func (in OneOffInput) salesMode(who domain.Caller) bool {
	return domain.Input{Caller: who, ReaderSerialNumber: in.ReaderSerialNumber}.SalesMode()
}

// OneOffPreview is the priced one-off configuration.
type OneOffPreview struct {
	Cart      *oneoff.Cart
	Invoice   oneoff.Invoice
	Preset    *oneoff.PresetCart
	AccountID string
	Email     string
	Counter   int64
	// LoggedIn: the buyer has a session (the e-mail is the session's).
	LoggedIn bool
	// BusinessIDAllowed: a business id may be entered for the billing country.
	BusinessIDAllowed bool
}

// PreviewOneOff prices a one-off configuration of a preconfigured cart: the products are
// the cart's (quantities as the buyer set them; products not in the cart are dropped), tax
// applies as the cart says, promo codes are rate-limited like every code check.
func (p *Purchases) PreviewOneOff(ctx context.Context, in OneOffInput) (*OneOffPreview, error) {
	cat, err := p.svc.Catalog()
	if err != nil {
		return nil, err
	}
	if err := checkCodeCounts(in.Order.PromoCodes, in.Order.GiftCodes); err != nil {
		return nil, err
	}
	preset, err := p.Cart(ctx, in.CartID)
	if err != nil {
		return nil, err
	}
	o := in.Order
	o.ApplyTax = preset.Request.ApplyTax
	o.Items = cartItems(preset, o.Items)
	if strings.TrimSpace(o.Currency) == "" {
		o.Currency = preset.Request.Currency
	}
	pv := &OneOffPreview{Preset: preset, Cart: oneoff.Normalize(cat, o), LoggedIn: in.Caller.LoggedIn}
	pv.BusinessIDAllowed = pv.Cart.Country != "" && cat.AllowsBusinessID(pv.Cart.Country)
	pv.AccountID, pv.Email = domain.ExtractAccountID(in.AccountID), pv.Cart.Email
	if in.Caller.LoggedIn {
		pv.AccountID, pv.Email = domain.ExtractAccountID(in.Caller.AccountID), domain.NormalizeEmail(in.Caller.Email)
		pv.Cart.Email = pv.Email
	}
	buyer := oneoff.Buyer{FirstTime: true}
	// As in a subscription cart, a code counts when first tried in this cart.
	codes := codeKeys(pv.Cart.PromoCodes, nil)
	ck := cartKey(in.ClientAddr, "oneoff:"+preset.UUID, "", firstNonEmpty(pv.AccountID, strings.ToLower(pv.Email)))
	if len(codes) > 0 {
		if err := p.svc.countCodes(ctx, in.ClientAddr, ck, firstNonEmpty(pv.AccountID, strings.ToLower(pv.Email)), codes); err != nil {
			return nil, err
		}
		if buyer, err = p.buyer(ctx, pv.AccountID, pv.Email); err != nil {
			return nil, err
		}
	}
	gifts, err := p.giftsTypedAsPromo(ctx, pv.Cart)
	if err != nil {
		return nil, err
	}
	buyer.PromotionsPerOrder = p.svc.perOrder
	buyer.SellerCountry = p.svc.seller
	promos, err := p.svc.livePromotions(ctx, pv.Cart.PromoCodes)
	if err != nil {
		return nil, err
	}
	pv.Invoice = oneoff.Price(pv.Cart, promos, buyer, p.svc.now())
	for _, code := range gifts {
		// Named like every refused code, so the page shows it by the code (issue 45).
		pv.Invoice.CodeErrors = append(pv.Invoice.CodeErrors, promotion.CodeError{Code: code, ErrorCode: promotion.CodeNotValid, Message: oneoff.MsgGiftNotAllowed})
	}
	if len(codes) > 0 {
		p.svc.remember(in.ClientAddr, ck, acceptedKeys(pv.Cart.PromoCodes, nil, pv.Invoice.CodeErrors))
	}
	pv.Counter = NextCounter(in.Counter)
	return pv, nil
}

// giftsTypedAsPromo answers a gift certificate typed in the one-off page's one code field
// with spec 001 §5's 'Gift certificates may not be used on one-off purchases' (it said 'Not
// a valid code.'), and leaves it out of the promotions. Looked up only after the code was
// counted as an attempt, so the answer is no unlimited test of which gift codes exist.
// It answers the gift codes it left out.
func (p *Purchases) giftsTypedAsPromo(ctx context.Context, c *oneoff.Cart) ([]string, error) {
	if len(c.PromoCodes) == 0 {
		return nil, nil
	}
	gifts, err := p.svc.store.Gifts(ctx, c.PromoCodes)
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "gift certificates are unavailable; try again")
	}
	promos := c.PromoCodes[:0:0]
	var left []string
	for _, code := range c.PromoCodes {
		if gifts[strings.ToLower(code)] == nil {
			promos = append(promos, code)
			continue
		}
		left = append(left, code)
		if !slices.Contains(c.Errors, oneoff.MsgGiftNotAllowed) {
			c.Errors = append(c.Errors, oneoff.MsgGiftNotAllowed)
		}
	}
	c.PromoCodes = promos
	return left, nil
}

// buyer answers what promo codes need to know: whether the buyer has bought before, and
// the codes already redeemed. A logged-in buyer is known by account; others by e-mail.
func (p *Purchases) buyer(ctx context.Context, accountID, email string) (oneoff.Buyer, error) {
	sub, err := p.svc.store.SubscriptionOf(ctx, accountID, email)
	if err == nil && sub == nil && accountID != "" && email != "" {
		sub, err = p.svc.store.SubscriptionOf(ctx, "", email)
	}
	if err != nil {
		return oneoff.Buyer{}, errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
	}
	if sub == nil {
		return oneoff.Buyer{FirstTime: true}, nil
	}
	acct, err := p.svc.store.Account(ctx, sub.AccountID, sub)
	if err != nil {
		return oneoff.Buyer{}, errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
	}
	return oneoff.Buyer{FirstTime: false, UsedCodes: acct.UsedCodes}, nil
}

// cartItems keeps the buyer's quantities for the cart's products; a product the buyer did
// not send keeps the cart's quantity, and anything not in the cart is dropped.
func cartItems(preset *oneoff.PresetCart, sent []oneoff.Item) []oneoff.Item {
	qty := map[string]string{}
	for _, it := range sent {
		qty[strings.TrimSpace(it.Code)] = it.Quantity
	}
	var out []oneoff.Item
	for _, pr := range preset.Request.SelectedProducts {
		q, ok := qty[pr.Code]
		if !ok {
			q = strconv.FormatInt(pr.Quantity, 10)
		}
		out = append(out, oneoff.Item{Code: pr.Code, Quantity: q})
	}
	return out
}
