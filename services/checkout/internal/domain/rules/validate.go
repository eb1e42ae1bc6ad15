package rules

import (
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// EuConsentRequired reports whether the EU consent checkbox is shown and must be ticked
// (spec 001 §5): for a buyer the page knows to be an EU customer, or whose billing
// country (normalised, 'eu' read as DE) is European. /buy and the one-off purchase share it.
func EuConsentRequired(cat *domain.Catalog, euCustomer bool, country string) bool {
	return euCustomer || cat.IsEuropean(country)
}

// ValidateConfiguration is the server validation before payment (spec 000 §5): the cart's
// own errors plus the licence agreement, EULA, e-mail and organization-name rules.
func ValidateConfiguration(c *domain.Cart, in domain.Input) []string {
	errs := append(append(append([]string{}, c.Errors...), c.PlanErrors...), c.SelectionErrors...)
	if (c.Business || c.Military) && c.Quantity > 1 && !in.LicenseChecked {
		errs = append(errs, MsgPleaseConfirm)
	}
	if c.Business && !in.EulaChecked {
		errs = append(errs, MsgEula)
	}
	if c.AccountID == "" && (c.Email == "" || !domain.ValidEmail(c.Email)) {
		errs = append(errs, MsgEmail)
	}
	if c.Business && !c.Renewal && !c.LoggedIn && strings.TrimSpace(in.OrganizationName) == "" {
		errs = append(errs, MsgOrganization)
	}
	if c.EuConsentRequired && !in.GdprCompliant {
		errs = append(errs, MsgEuConsent)
	}
	if len(c.ExpiringAllocations) > 0 && !allocationsAcknowledged(c.ExpiringAllocations, in.ExpiredAllocations) {
		errs = append(errs, MsgAllocationsExpire)
	}
	return errs
}

// Validate is ValidateConfiguration plus the settings of the rules: the human
// verification value when it is required (spec 000 §5).
func (r Rules) Validate(c *domain.Cart, in domain.Input) []string {
	errs := ValidateConfiguration(c, in)
	if r.RecaptchaRequired && strings.TrimSpace(in.RecaptchaValue) == "" {
		errs = append(errs, MsgHuman)
	}
	return errs
}

// Payment is the payment form as submitted.
type Payment struct {
	Nonce             string
	ExistingMethod    bool
	CardholderName    string
	Zip               string
	Country           string
	RecaptchaRequired bool
	RecaptchaValue    string
}

// ValidatePayment checks the payment form (spec 000 §5, spec 001 §5).
func ValidatePayment(p Payment) []string {
	var errs []string
	if strings.TrimSpace(p.Nonce) == "" && !p.ExistingMethod {
		errs = append(errs, MsgCardBlank)
	}
	if strings.TrimSpace(p.CardholderName) == "" && !p.ExistingMethod {
		errs = append(errs, MsgNameBlank)
	}
	if strings.TrimSpace(p.Zip) == "" {
		errs = append(errs, MsgPostalBlank)
	}
	if strings.TrimSpace(p.Country) == "" {
		errs = append(errs, MsgSelectCountry)
	}
	if p.RecaptchaRequired && strings.TrimSpace(p.RecaptchaValue) == "" {
		errs = append(errs, MsgHuman)
	}
	return errs
}

// MissingBillingInfo reports incomplete billing information: a blank zipcode or country, or
// a cardholder name without two words.
func MissingBillingInfo(zip, country, cardholder string) bool {
	return strings.TrimSpace(zip) == "" || strings.TrimSpace(country) == "" || len(strings.Fields(cardholder)) < 2
}
