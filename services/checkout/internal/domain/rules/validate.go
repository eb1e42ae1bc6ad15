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
	// A new business buyer's organization is created at checkout under this name (a buyer
	// already in an organization buys for it).
	if c.Business && !c.Renewal && (!c.LoggedIn || in.Caller.Organization == "") && strings.TrimSpace(in.OrganizationName) == "" {
		errs = append(errs, MsgOrganization)
	}
	if c.EuConsentRequired && !in.GdprCompliant {
		errs = append(errs, MsgEuConsent)
	}
	if !allocationsAcknowledged(tails(c.ExpiringAllocations, false), in.ExpiredAllocations) {
		errs = append(errs, MsgAllocationsExpire)
	}
	if !allocationsAcknowledged(tails(c.ExpiringAllocations, true), in.ExpiredAllocations) {
		errs = append(errs, MsgUserLicencesExpire)
	}
	return errs
}

// TargetUsers is the target type of an expiring user pool in Cart.ExpiringAllocations.
const TargetUsers = "USER"

// tails answers the expiring allocations of users' pools (users) or the others (aircraft).
func tails(all []domain.Allocation, users bool) []domain.Allocation {
	var out []domain.Allocation
	for _, a := range all {
		if (a.TargetType == TargetUsers) == users {
			out = append(out, a)
		}
	}
	return out
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

// MilitaryCart reports whether a cart buys a military or international-military plan.
func MilitaryCart(c *domain.Cart) bool {
	return c.Military || c.Plan != nil && c.Plan.PlanType == "military"
}

// InternationalPlan reports whether a plan is an international-military one (codes
// ending _intl).
func InternationalPlan(e *domain.Entry) bool {
	return e != nil && strings.HasSuffix(e.Code, "_intl")
}

// Military eligibility (spec 001 §4): where a buyer proves it, and what a buyer who has
// not is told (the spec does not word it).
const (
	EligibilityPage         = "/buy/military"
	EligibilityPageIntl     = "/buy/military_intl"
	CodeMilitaryEligibility = "MILITARY_ELIGIBILITY_REQUIRED"
)

// MsgMilitaryEligibility tells a buyer who has not proven military eligibility where to.
func MsgMilitaryEligibility(international bool) string {
	page := EligibilityPage
	if international {
		page = EligibilityPageIntl
	}
	return "Military Flight Bag plans are sold only to verified military customers. Please verify your eligibility at " + page + " first."
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

// ValidatePayment checks the payment form (spec 000 §5, spec 001 §5): the one check of
// the subscription, gift and one-off submits. A card needs a nonce and the cardholder's
// name of two words (spec 000 §5: billing info is missing when the name lacks two words);
// a stored method needs neither. Every payment needs the billing postal code and country,
// which the tax is computed from.
func ValidatePayment(p Payment) []string {
	var errs []string
	if strings.TrimSpace(p.Nonce) == "" && !p.ExistingMethod {
		errs = append(errs, MsgCardBlank)
	}
	if !p.ExistingMethod {
		switch name := strings.Fields(p.CardholderName); {
		case len(name) == 0:
			errs = append(errs, MsgNameBlank)
		case len(name) < 2:
			errs = append(errs, MsgNameTwoWords)
		}
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
