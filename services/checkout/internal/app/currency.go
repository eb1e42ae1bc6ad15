package app

import (
	"context"
	"strings"
)

// Geo answers the store's currency for a browser's location (the geo service).
type Geo interface {
	// LocationCurrency locates the browser behind chain: the X-Forwarded-For values this
	// service received, then its peer.
	LocationCurrency(ctx context.Context, chain []string) (string, error)
}

// Where a default currency came from (GetCurrency's source).
const (
	CurrencyFromSubscription = "subscription"
	CurrencyFromCookie       = "cookie"
	CurrencyFromLocation     = "location"
	CurrencyFromDefault      = "default"
)

// DefaultCurrency is the currency of a buyer who has none stored (spec 001 §4): the
// currency cookie the shell set (ff_currency_choice), else the location of the client
// address through the trusted proxy chain (geo), else the store's default, USD. Military
// carts never ask: their currency is fixed.
func (s *Service) DefaultCurrency(ctx context.Context, caller Caller) (code, source string) {
	if c := s.currencyCode(caller.CurrencyCookie); c != "" {
		return c, CurrencyFromCookie
	}
	if s.geo != nil && len(caller.Chain) > 0 {
		loc, err := s.geo.LocationCurrency(ctx, caller.Chain)
		if err != nil {
			s.log.DebugContext(ctx, "location lookup for the default currency failed; USD", "err", err.Error())
		} else if c := s.currencyCode(loc); c != "" {
			return c, CurrencyFromLocation
		}
	}
	return "USD", CurrencyFromDefault
}

// currencyCode answers code when the catalogue sells in it, else "".
func (s *Service) currencyCode(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if code == "" {
		return ""
	}
	if cat := s.cat.Load(); cat != nil {
		if c, ok := cat.Currency(code); ok {
			return c.Code
		}
		return ""
	}
	return code
}
