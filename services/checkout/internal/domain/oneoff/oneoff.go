// Package oneoff provides the use-case rules of a one-off purchase (spec 001 §1–§5): a
// preset cart of one-off products (catalogue planType oneOff) with quantities, priced with
// promo codes and tax, and the preconfigured carts staff create and share as links. It
// knows nothing of SQL, protobuf or HTTP.
package oneoff

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// Quantity bounds (spec 001 §9).
const (
	MinQuantity = 1
	MaxQuantity = 9999
	// MaxProducts bounds a cart; the spec names no limit.
	MaxProducts = 50
)

// PlanTypeOneOff is the catalogue planType of a one-off product.
const PlanTypeOneOff = "oneOff"

// CartType is the commerceCartType of a preconfigured one-off cart.
const CartType = "ONE_OFF"

// ItemNonRecurring is the invoice item type of a one-off product (spec 000 §3).
const ItemNonRecurring = "NON_RECURRING_ITEM"

// Messages. The first two are spec 001 §5 and §8; the others are not worded there.
const (
	MsgGiftNotAllowed = "Gift certificates may not be used on one-off purchases"
	MsgZipcode        = "Please enter your zipcode"
	MsgEmail          = "Please enter your email address"
	MsgEmptyCart      = "Your cart is empty."
	MsgTooManyItems   = "A cart holds at most 50 products."
)

// MsgUnknownProduct names a code that is not a product of the catalogue.
func MsgUnknownProduct(code string) string {
	return fmt.Sprintf("%s is not a product we sell.", code)
}

// MsgNotOneOff names a catalogue entry that is sold only with a subscription.
func MsgNotOneOff(title string) string {
	return fmt.Sprintf("%s is sold with a subscription, not as a one-off product.", title)
}

// Item is a product line as sent: the code and the quantity as typed.
type Item struct {
	Code     string
	Quantity string
}

// Order is the one-off configuration of spec 001 §3, as far as pricing needs it.
type Order struct {
	Items      []Item
	Currency   string
	Country    string
	Zip        string
	BusinessID string
	Email      string
	ApplyTax   bool
	GiftCodes  []string
	PromoCodes []string
	// EuCustomer: the page knows the buyer to be an EU customer; GdprCompliant: the EU
	// consent checkbox is ticked.
	EuCustomer    bool
	GdprCompliant bool
}

// Line is a product with its clamped quantity.
type Line struct {
	Entry    *domain.Entry
	Quantity int64
}

// Cart is an order after the rules.
type Cart struct {
	Lines      []Line
	Currency   domain.Currency
	Country    string
	Zip        string
	BusinessID string
	Email      string
	ApplyTax   bool
	PromoCodes []string
	Errors     []string
	// EuConsentRequired: the EU consent checkbox is shown and must be ticked, by /buy's rule.
	EuConsentRequired bool
}

// ClampQuantity reads a typed quantity and clamps it to 1..9999; text that is not a number
// is the minimum (spec 001 §5).
func ClampQuantity(raw string) int64 {
	q, ok := domain.ParseQuantity(raw)
	if !ok {
		return MinQuantity
	}
	return int64(min(max(q, MinQuantity), MaxQuantity))
}

// Normalize applies the rules: quantities clamped, products that are not one-off products
// (or not sold in the currency) refused, gift certificates refused, 'eu' read as DE, and a
// business id kept only for the countries where one may be entered.
func Normalize(cat *domain.Catalog, o Order) *Cart {
	c := &Cart{Country: domain.NormalizeCountry(o.Country), Zip: strings.TrimSpace(o.Zip), Email: domain.NormalizeEmail(o.Email), ApplyTax: o.ApplyTax}
	cur := cat.CurrencyOrDefault(o.Currency)
	c.Currency = cur
	c.EuConsentRequired = rules.EuConsentRequired(cat, o.EuCustomer, c.Country)
	add := func(msg string) {
		for _, e := range c.Errors {
			if e == msg {
				return
			}
		}
		c.Errors = append(c.Errors, msg)
	}
	if c.Country != "" && cat.AllowsBusinessID(c.Country) {
		c.BusinessID = strings.TrimSpace(o.BusinessID)
	}
	seen := map[string]int{}
	for _, it := range o.Items {
		code := strings.TrimSpace(it.Code)
		if code == "" {
			continue
		}
		e, ok := cat.Entry(code)
		switch {
		case !ok:
			add(MsgUnknownProduct(code))
			continue
		case e.PlanType != PlanTypeOneOff || e.Deprecated:
			add(MsgNotOneOff(e.Title))
			continue
		}
		if p, ok := e.Prices[cur.Code]; !ok || p.Included {
			add(rules.MsgUnavailableIn(e.Title, cur))
			continue
		}
		q := ClampQuantity(it.Quantity)
		if i, dup := seen[code]; dup { // the same product twice is one line
			c.Lines[i].Quantity = min(c.Lines[i].Quantity+q, MaxQuantity)
			continue
		}
		seen[code] = len(c.Lines)
		c.Lines = append(c.Lines, Line{Entry: e, Quantity: q})
	}
	if len(c.Lines) == 0 && len(c.Errors) == 0 {
		add(MsgEmptyCart)
	}
	if len(c.Lines) > MaxProducts {
		add(MsgTooManyItems)
	}
	for _, g := range o.GiftCodes {
		if strings.TrimSpace(g) != "" {
			add(MsgGiftNotAllowed)
		}
	}
	for _, p := range o.PromoCodes {
		if p = strings.TrimSpace(p); p != "" {
			c.PromoCodes = append(c.PromoCodes, p)
		}
	}
	return c
}

// CheckConsent answers the EU consent message when the cart needs the consent and the
// buyer has not given it; submit refuses the order with it, as /buy's submit does.
func CheckConsent(c *Cart, gdprCompliant bool) []string {
	if c.EuConsentRequired && !gdprCompliant {
		return []string{rules.MsgEuConsent}
	}
	return nil
}

// Buyer is what pricing needs to know about the buyer (for promo codes).
type Buyer struct {
	FirstTime bool
	UsedCodes []string
	// PromotionsPerOrder is the store's stacking rule (promotion.Stacking; 0: one).
	PromotionsPerOrder int
	// SellerCountry is the seller's EU member state (pricing.Pricing.SellerCountry).
	SellerCountry string
}

// InvoiceLine is a line of the one-off invoice. Amount = unit × quantity; discount lines
// have no add-on code, quantity 0 and the amount as the unit amount (spec 000 §3).
type InvoiceLine struct {
	Type              string
	AddOnCode         string
	PlanType          string
	Description       string
	UnitAmountInCents int64
	Quantity          int64
	AmountInCents     int64
	Key               string
}

// Invoice is the priced one-off cart.
type Invoice struct {
	Currency        string
	Lines           []InvoiceLine
	ChargesInCents  int64
	DiscountInCents int64
	SubtotalInCents int64
	TaxInCents      int64
	TotalInCents    int64
	Tax             tax.Rule
	CodeErrors      []promotion.CodeError
	Errors          []string
}

// Price prices a normalised cart: NON_RECURRING_ITEM lines, promo codes in the order
// entered, then tax on what remains (when the cart applies tax). Problems are in Errors.
func Price(c *Cart, promos map[string]*promotion.Promotion, b Buyer, now time.Time) Invoice {
	inv := Invoice{Currency: c.Currency.Code, Errors: append([]string(nil), c.Errors...)}
	for _, l := range c.Lines {
		unit := l.Entry.Prices[c.Currency.Code].AmountInCents
		inv.Lines = append(inv.Lines, InvoiceLine{Type: ItemNonRecurring, AddOnCode: l.Entry.Code, PlanType: l.Entry.PlanType,
			Description: l.Entry.Title, UnitAmountInCents: unit, Quantity: l.Quantity, AmountInCents: unit * l.Quantity,
			Key: ItemNonRecurring + ":" + l.Entry.Code})
		inv.ChargesInCents += unit * l.Quantity
	}
	due := inv.ChargesInCents
	fail := func(code, errCode, msg string) {
		inv.CodeErrors = append(inv.CodeErrors, promotion.CodeError{Code: code, ErrorCode: errCode, Message: msg})
		if !contains(inv.Errors, msg) {
			inv.Errors = append(inv.Errors, msg)
		}
	}
	var seen []string
	stack := promotion.Stacking{PerOrder: b.PromotionsPerOrder}
	for _, code := range c.PromoCodes {
		if containsFold(seen, code) || containsFold(b.UsedCodes, code) {
			fail(code, promotion.CodeAlreadyUsed, promotion.MsgCodeUsed)
			continue
		}
		seen = append(seen, code)
		p := promos[strings.ToLower(code)]
		if p == nil {
			fail(code, promotion.CodeNotValid, promotion.MsgNotValid)
			continue
		}
		// A one-off purchase is a new purchase without a plan, by the promotion's own rules.
		d, ce := p.Evaluate(domain.Account{FirstTime: b.FirstTime}, promotion.Purchase{Currency: c.Currency.Code, Charges: due, Now: now})
		if ce != nil {
			fail(code, ce.ErrorCode, ce.Message)
			continue
		}
		if d == 0 {
			continue
		}
		if ce := stack.Take(p.Code); ce != nil {
			fail(code, ce.ErrorCode, ce.Message)
			continue
		}
		due -= d
		inv.DiscountInCents += d
		up := strings.ToUpper(p.Code)
		inv.Lines = append(inv.Lines, InvoiceLine{Type: pricing.ItemPlanDiscount, Description: "Promotion " + up,
			UnitAmountInCents: -d, AmountInCents: -d, Key: pricing.ItemPlanDiscount + ":" + up})
	}
	inv.SubtotalInCents = due
	inv.Tax = tax.For(b.SellerCountry, c.Country, c.Zip, c.BusinessID, c.Currency)
	if !c.ApplyTax {
		// The cart was created without tax (e.g. staff selling to a tax-exempt buyer): the
		// label stays, nothing is charged.
		inv.Tax = tax.Rule{Label: inv.Tax.Label}
	}
	inv.TaxInCents = inv.Tax.Amount(due)
	inv.TotalInCents = due + inv.TaxInCents
	return inv
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
