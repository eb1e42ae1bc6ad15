// Package domain holds geo's rules: which countries are in the European Union, which
// currency the store defaults to for a country, and which address in a proxy chain is the
// client's. No I/O: the IP data set is passed in as a function.
package domain

import (
	"net/netip"
	"strings"
)

// Currencies the store sells in (spec 001 §9); USD is the default.
const (
	USD = "USD"
	EUR = "EUR"
	GBP = "GBP"
	CAD = "CAD"
	AUD = "AUD"
)

// euMembers are the 27 member states of the European Union (ISO 3166-1 alpha-2). The
// cookie banner is for EU visitors only, as the spec says; EEA-only states (NO, IS, LI),
// Switzerland and the United Kingdom are not members.
var euMembers = set("AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR",
	"HU", "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK")

// euroArea are the countries whose currency is the euro: the 21 EU members of the euro
// area (Bulgaria since 1 January 2026), the four states that use it by agreement with the
// EU (Andorra, Monaco, San Marino, Vatican City) and the two that adopted it unilaterally
// (Montenegro, Kosovo). EU members with their own currency (PL, CZ, HU, RO, SE, DK) get
// the default, USD, as the rule says: only the euro area is priced in euros.
var euroArea = set("AT", "BE", "BG", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT",
	"LT", "LU", "LV", "MT", "NL", "PT", "SI", "SK", "AD", "MC", "SM", "VA", "ME", "XK")

func set(codes ...string) map[string]bool {
	m := make(map[string]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}

// Location is what the store needs to know about where a visitor is.
type Location struct {
	// Addr is the address that was located.
	Addr netip.Addr
	// CountryCode is ISO 3166-1 alpha-2, empty when unknown (private or unassigned space).
	CountryCode string
	IsEU        bool
	Currency    string
}

// CountryFunc answers the ISO country code of an address from an IP data set, or "" (or
// a placeholder such as "ZZ") when the data set does not know it.
type CountryFunc func(netip.Addr) string

// Locate answers addr's location. Private, loopback, link-local and other non-global
// addresses are not looked up: the data set says nothing true about them.
func Locate(addr netip.Addr, country CountryFunc) Location {
	addr = addr.Unmap()
	loc := Location{Addr: addr, Currency: USD}
	if !addr.IsValid() || !addr.IsGlobalUnicast() || addr.IsPrivate() {
		return loc
	}
	cc := strings.ToUpper(country(addr))
	if len(cc) != 2 || cc == "ZZ" || cc == "--" {
		return loc
	}
	loc.CountryCode = cc
	loc.IsEU = euMembers[cc]
	loc.Currency = CurrencyFor(cc)
	return loc
}

// CurrencyFor answers the store's default currency for a country: EUR in the euro area,
// GBP in the United Kingdom, CAD in Canada, AUD in Australia, otherwise USD.
func CurrencyFor(countryCode string) string {
	switch cc := strings.ToUpper(countryCode); {
	case euroArea[cc]:
		return EUR
	case cc == "GB":
		return GBP
	case cc == "CA":
		return CAD
	case cc == "AU":
		return AUD
	default:
		return USD
	}
}
