package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// VATRegistry says whether an EU VAT number is registered: the Commission's VIES in
// production (an adapter over its service), DevVATRegistry in development and tests.
type VATRegistry interface {
	// Registered answers whether number (without its prefix) is a registered VAT number of
	// the member state country (ISO code; Greece GR).
	Registered(ctx context.Context, country, number string) (bool, error)
}

// DevVATRegistry is the development register: every number of the right format is
// registered except those ending in 000000 (to try the refusal by hand).
type DevVATRegistry struct{}

// Registered implements VATRegistry.
func (DevVATRegistry) Registered(_ context.Context, _, number string) (bool, error) {
	return !strings.HasSuffix(number, "000000"), nil
}

// What the VAT-ID check answers (domain.Cart.VATIDStatus): whether the id counted.
const (
	VATIDNotUsed       = "not_used"       // the billing country takes no VAT id
	VATIDInvalid       = "invalid"        // not the country's format
	VATIDNotRegistered = "not_registered" // the register does not know it
	VATIDUnverified    = "unverified"     // the register could not be asked
	VATIDReverseCharge = "reverse_charge" // counted: the business accounts for the VAT
	VATIDDomestic      = "domestic"       // counted: a business in the seller's state pays its VAT
	VATIDRecorded      = "recorded"       // counted: printed on the invoice (outside the EU)
)

// VATIDCounted reports whether a VAT-ID status means the id counted for the tax.
func VATIDCounted(status string) bool {
	return status == VATIDReverseCharge || status == VATIDDomestic || status == VATIDRecorded
}

// checkVATID checks the cart's VAT id before it is priced: its country's format, then
// (EU ids) the register. An id that does not count is cleared, so the sale is taxed as a
// consumer's, and the cart says why; typed is the id as the buyer sent it.
func (s *Service) checkVATID(ctx context.Context, cart *domain.Cart, typed string) {
	typed = strings.TrimSpace(typed)
	if typed == "" {
		return
	}
	if cart.BusinessID == "" { // cleared by the rules: a country outside the business-id list
		cart.VATIDStatus, cart.VATIDMessage = VATIDNotUsed, fmt.Sprintf("A VAT ID is not used for a billing address in %s; it was not counted.", orNone(cart.Country))
		return
	}
	f := tax.CheckVATIDFormat(cart.BusinessID, cart.Country)
	if !f.OK {
		cart.BusinessID = ""
		cart.VATIDStatus, cart.VATIDMessage = VATIDInvalid, f.Problem+" It was not counted: VAT is charged."
		return
	}
	if !tax.IsEUCountry(cart.Country) || s.vatRegistry == nil {
		return
	}
	ok, err := s.vatRegistry.Registered(ctx, cart.Country, f.Number)
	switch {
	case err != nil:
		s.log.WarnContext(ctx, "VAT register unavailable: the id is not counted", "country", cart.Country, "err", err.Error())
		cart.BusinessID = ""
		cart.VATIDStatus, cart.VATIDMessage = VATIDUnverified, "The EU VAT register (VIES) cannot be reached just now, so VAT is charged. Try again in a few minutes to have the VAT ID counted."
	case !ok:
		cart.BusinessID = ""
		cart.VATIDStatus, cart.VATIDMessage = VATIDNotRegistered, fmt.Sprintf("The EU VAT register (VIES) does not know %s%s. It was not counted: VAT is charged.", f.Prefix, f.Number)
	}
}

// vatIDCounted words how a VAT id that passed checkVATID counted, by the rule priced.
func vatIDCounted(cart *domain.Cart, rule tax.Rule) {
	if cart.BusinessID == "" || cart.VATIDStatus != "" {
		return
	}
	id := strings.ToUpper(strings.TrimSpace(cart.BusinessID))
	switch {
	case rule.ReverseCharge:
		cart.VATIDStatus, cart.VATIDMessage = VATIDReverseCharge, fmt.Sprintf("VAT ID %s counted: the reverse charge applies, and you account for the VAT (Article 196, Directive 2006/112/EC).", id)
	case rule.Basis == tax.BasisDomesticBusiness:
		cart.VATIDStatus, cart.VATIDMessage = VATIDDomestic, fmt.Sprintf("VAT ID %s counted: a business in %s, the seller's member state, pays %s VAT at %s.", id, rule.Jurisdiction, rule.Jurisdiction, tax.Percent(rule.PPM()))
	default:
		cart.VATIDStatus, cart.VATIDMessage = VATIDRecorded, fmt.Sprintf("VAT ID %s recorded: it is printed on your invoice.", id)
	}
}

func orNone(country string) string {
	if country == "" {
		return "no country"
	}
	return country
}
