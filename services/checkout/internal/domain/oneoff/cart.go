package oneoff

import (
	"strconv"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// Product is a product of a preconfigured cart with its quantity.
type Product struct {
	Code     string `json:"code"`
	Quantity int64  `json:"quantity"`
}

// Request is a preconfigured cart's requestJson (spec 001 §3): what the cart link opens.
type Request struct {
	SelectedProducts []Product `json:"selectedProducts"`
	ApplyTax         bool      `json:"applyTax"`
	Currency         string    `json:"currency"`
	DiscountCode     string    `json:"discountCode"`
}

// PresetCart is a preconfigured cart: created by staff, opened by anyone with its id.
type PresetCart struct {
	UUID      string
	Request   Request
	CartType  string
	CreatedBy string
}

// Staff reports whether a caller may create carts: employees and credit-card admins.
func Staff(employee, creditCardAdmin bool) bool { return employee || creditCardAdmin }

// NewPresetCart checks a cart staff want to create: at least one product, every one a
// one-off product sold in the currency, quantities clamped, a supported currency (unknown
// is refused here, not defaulted: staff should see their mistake). The id is set by the
// store.
func NewPresetCart(cat *domain.Catalog, r Request, createdBy string) (PresetCart, error) {
	// No currency chosen is stored as none (not the default), so the page can tell it from
	// a staff choice and follow the buyer's location instead; the products are checked in
	// the default currency then.
	cur, ok := cat.Currency(r.Currency)
	chosen := ok
	if !ok {
		if strings.TrimSpace(r.Currency) != "" {
			return PresetCart{}, errs.Field("currency", "Currency "+r.Currency+" is not available")
		}
		cur = cat.DefaultCurrency()
	}
	var items []Item
	for _, p := range r.SelectedProducts {
		items = append(items, Item{Code: p.Code, Quantity: strconv.FormatInt(p.Quantity, 10)})
	}
	c := Normalize(cat, Order{Items: items, Currency: cur.Code})
	if len(c.Errors) > 0 {
		return PresetCart{}, errs.Field("selectedProducts", strings.Join(c.Errors, " "))
	}
	out := PresetCart{CartType: CartType, CreatedBy: createdBy, Request: Request{ApplyTax: r.ApplyTax,
		DiscountCode: strings.ToUpper(strings.TrimSpace(r.DiscountCode))}}
	if chosen {
		out.Request.Currency = cur.Code
	}
	for _, l := range c.Lines {
		out.Request.SelectedProducts = append(out.Request.SelectedProducts, Product{Code: l.Entry.Code, Quantity: l.Quantity})
	}
	return out, nil
}
