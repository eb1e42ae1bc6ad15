package domain

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Plans the rules start from (spec 000 §4).
const (
	StartPlan             = "pro_plus"
	MilitaryStartPlan     = "mfb_pro"
	MilitaryIntlStartPlan = "mfb_pro_intl"
	BundlePlan            = "honda_jet_bundle"
	DowngradePlan         = "basic_plus"
	// BYOPStartPlan is the start plan of the bring-your-own-panel page.
	BYOPStartPlan = "pro"
)

// PlanTypeHidden is the plan type of the "not purchased" halves of the dispatch and
// runway pairs: in the cart, never on the invoice.
const PlanTypeHidden = "hiddenPlan"

// Licence limits (spec 000 §5, §9).
const (
	BusinessMinQuantity = 2
	MaxQuantity         = 100
	BundleQuantity      = 2
	// SliderDefaultQuantity is the business quantity when none is given.
	SliderDefaultQuantity = 2
)

// TestEmail is the e-mail value the page uses for test purchases; it is ignored
// (treated as no e-mail) so that it never reaches an account (spec 000 §5).
const TestEmail = "test@test.com"

// Payment sources and methods that change the rules.
const (
	PaymentComplimentary = "COMPLIMENTARY"
	PaymentThirdParty    = "THIRD_PARTY"
)

// Chart-provider platform types (spec 000 §3).
const (
	PlatformApp  = "App"
	PlatformWeb  = "Web"
	PlatformBoth = "Both"
)

// ChartChoice is a platform choice for one coverage: Code names either variant; Type is
// App, Web or Both; Checked false removes the coverage.
type ChartChoice struct {
	Code    string
	Type    string
	Checked bool
}

// Input is a configuration as sent by the page (spec 000 §3), before the rules.
type Input struct {
	Email            string
	OrganizationName string
	BusinessID       string
	AccountID        string
	SubscriptionID   string
	Currency         string
	AddOns           []string
	// Quantity is the raw value: a number, typed text, or empty when unset.
	Quantity          string
	Military          bool
	MilitaryIntl      bool
	Bundle            bool
	IsBusiness        bool
	IsRenewal         bool
	EulaChecked       bool
	LicenseChecked    bool
	JeppCustomerNo    string
	Zip               string
	Country           string
	CardholderName    string
	GiftCodes         []string
	PromoCodes        []string
	Upgrade           string
	Extras            []string
	BusinessDowngrade bool
	PaymentMethod     string
	ChartChoice       *ChartChoice
	ViewedPromos      []string
	CartID            string
	Counter           int64
	// Caller is who is asking, from the session (never from the request body).
	Caller Caller
	// IsBYOP: the buyer comes from the bring-your-own-panel page; an empty cart starts
	// from the BYOP plan.
	IsBYOP bool
	// EuCustomer and GdprCompliant: an EU customer must give the EU consent.
	EuCustomer    bool
	GdprCompliant bool
	// MarketingConsent: the buyer ticked the optional marketing checkbox (submit only).
	MarketingConsent bool
	// DisableEmail: the page locked the e-mail field (it came with the link).
	DisableEmail bool
	// JeppAccountActive: the buyer's linked chart-provider account is active; like a typed
	// account number, its coverages are bought there.
	JeppAccountActive bool
	RecaptchaValue    string
	// RunwayAircraft are the aircraft models (catalogue aircraft codes) the buyer wants
	// runway analysis for.
	RunwayAircraft []string
	// ExpiredAllocations are the allocations the buyer was told would expire (validate's
	// allocations, echoed back); KeepExpiredAllocations keeps their add-ons instead.
	ExpiredAllocations     []Allocation
	KeepExpiredAllocations bool
	// ReaderSerialNumber is the card reader of the page's sales mode (docs/storefront.md).
	ReaderSerialNumber string
}

// SalesMode reports a purchase made by staff in sales mode: a credit-card admin's session
// (never the body) and the sales-mode reader. Such a purchase is for the customer the
// configuration names, who is at the counter, so it is exempt from requireLogin.
// Kiosk mode alone is not: anyone can add kiosk=true to an address.
func (in Input) SalesMode() bool {
	return in.Caller.LoggedIn && in.Caller.CreditCardAdmin && strings.TrimSpace(in.ReaderSerialNumber) != ""
}

// Caller is the buyer of a live session, as the session middleware resolved it.
type Caller struct {
	LoggedIn  bool
	AccountID string
	Email     string
	// Child: a child account of a group, which cannot change its subscription.
	Child bool
	// Manager: the caller owns the priced subscription for the person who holds it (the
	// group parent of a child's subscription, the owner of the organization it is filed
	// under): they may change it, where the child may not.
	Manager bool
	// Organization is the account of the identity organization the buyer belongs to: the
	// owner of a business subscription's licences (the allocation service's pools).
	Organization string
	// OrganizationBilling: the caller holds the Billing right on Organization (its owner;
	// docs/authorization.md), so a business purchase of theirs is the organization's.
	OrganizationBilling bool
	// CreditCardAdmin: staff who may use the card reader (sales mode).
	CreditCardAdmin bool
}

// Allocation is an add-on allocated to a target (an aircraft tail) of a subscription.
type Allocation struct {
	AddOnCodes    []string
	TargetID      string
	TargetOwnerID string
	TargetType    string // TAIL, or USER for a users' pool the cart lowers
	Assigned      int    // USER: the users holding the pool
}

// UserPool is one owner's pool of an add-on licensed to users, and how many users hold it.
type UserPool struct {
	Owner, Code string
	Assigned    int
}

// Subscription is an account's current subscription, as stored by checkout.
type Subscription struct {
	ID              string
	AccountID       string
	Email           string
	Name            string
	PlanCode        string
	AddOns          []string
	Quantity        int
	Currency        string
	PriceInCents    int64 // what the current term cost, before tax
	TermStart       time.Time
	TermEnd         time.Time
	PaymentSource   string
	PaymentMethod   string
	BillingMethod   string
	LicensingMethod string
	ParentAccountID string
	OrganizationID  string
	Military        bool
	Valid           bool
	BusinessID      string
	BillingCountry  string
	BillingZip      string
	// What the allocation service reports about the owner's licences, filled per request
	// (never stored here). AllocatedAddOns are add-ons users hold: they cannot be toggled
	// here, only on the product's users page. Allocations are the tail allocations.
	// UsersAllocated: the plan's licences are pooled for user allocation (regions follow
	// the subscription).
	AllocatedAddOns []string
	Allocations     []Allocation
	UsersAllocated  bool
	// UserPools are the pools licensed to users (USER_ALLOCATION, PER_USER) that users hold.
	UserPools []UserPool
	// AutoRenew, the billing contact (spec 001 §3) and the version of the last change.
	AutoRenew                                                               bool
	BillingName, BillingAddress, BillingAddress2, BillingCity, BillingState string
	Version                                                                 int64
	// EarlierTerms are paid terms before the current one that have not ended: an early
	// renewal starts the new term at the old one's end, whose unused days stay paid for.
	EarlierTerms []Term
}

// Term is one paid term of a subscription (stored as JSON in earlier_terms).
type Term struct {
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	PriceInCents int64     `json:"priceInCents"`
}

// BillingContact is a subscription's billing contact (spec 001 §3).
type BillingContact struct {
	Name, PhysicalAddress, PhysicalAddress2, City, StateProvince, PostalCode, Country string
}

// Contact answers the subscription's billing contact.
func (s *Subscription) Contact() BillingContact {
	return BillingContact{Name: s.BillingName, PhysicalAddress: s.BillingAddress, PhysicalAddress2: s.BillingAddress2,
		City: s.BillingCity, StateProvince: s.BillingState, PostalCode: s.BillingZip, Country: s.BillingCountry}
}

// UserAllocation reports whether the subscription's licences are allocated to users.
func (s *Subscription) UserAllocation() bool { return s.UsersAllocated }

// LicensingUserAllocation is the licensing method of licences allocated to users.
const LicensingUserAllocation = "USER_ALLOCATION"

// LicensingPerUser is the licensing method of one licence per user, also held by users.
const LicensingPerUser = "PER_USER"

// LicensingDefault is the pricing type (spec 000 §3) of an add-on sold as is: not pooled
// for users or tails.
const LicensingDefault = "DEFAULT"

// GroupAvionics is the catalogue group of panel-avionics data add-ons.
const GroupAvionics = "AVIONICS"

// ThirdParty reports whether a third party controls the subscription (spec 000 §6).
func (s *Subscription) ThirdParty() bool { return s.PaymentSource == PaymentThirdParty }

// ChildAccount reports whether the subscription belongs to a group's child account.
func (s *Subscription) ChildAccount() bool { return s.ParentAccountID != "" }

// Account is what pricing and promotions need to know about the buyer's account.
type Account struct {
	FirstTime        bool
	UsedCodes        []string // promo codes already redeemed (any case)
	BalanceInCents   int64
	BalanceCurrency  string
	HasChartCoverage bool
}

// Used reports whether the account already redeemed a promo code (any case).
func (a Account) Used(code string) bool {
	for _, c := range a.UsedCodes {
		if strings.EqualFold(c, code) {
			return true
		}
	}
	return false
}

// Adjustment is a change the rules made, with its reason for people.
type Adjustment struct {
	Code   string
	Action string // removed, added, replaced
	Reason string
	// Notice: Reason is worded for the buyer, and the preview shows it. The others are the
	// rules' own notes ("military carts start from ...", "business downgrade to ..."), for
	// tests and logs, never a bullet on the buyer's invoice (issue 45).
	Notice bool
}

// Cart is a configuration after the rules: what gets priced.
type Cart struct {
	Plan            *Entry
	AddOns          []string // plan first, then add-ons in selection order
	Quantity        int
	Currency        Currency
	Business        bool
	Military        bool
	MilitaryIntl    bool
	Bundle          bool
	Renewal         bool
	Existing        *Subscription
	Managed         bool // the buyer changes Existing for its holder (Caller.Manager)
	LegacyReplaced  bool
	ReplacedPlan    string
	RegionMode      string // radio, checkbox, none
	ChartsDisabled  bool
	Adjustments     []Adjustment
	Errors          []string
	PlanErrors      []string
	SelectionErrors []string
	Email           string
	AccountID       string
	BusinessID      string
	Country         string
	Zip             string
	PaymentMethod   string
	PromoCodes      []string
	GiftCodes       []string
	ViewedPromos    []string
	// LoggedIn: the buyer has a session; EmailLocked: the e-mail cannot be changed (the
	// session's, or the page locked it).
	LoggedIn    bool
	EmailLocked bool
	// ErrorCodes are spec 000 §8 codes for the page (CHILD_ACCOUNT_PURCHASE, ...).
	ErrorCodes []string
	// RegionsDisabled: regions follow the subscription (licences allocated to users).
	RegionsDisabled bool
	// LockedAddOns are allocated products that cannot be toggled here.
	LockedAddOns []string
	// Sections the page may show (spec 000 §6).
	ChartIfrVisible     bool
	MilitarySuppVisible bool
	// EuConsentRequired: the EU consent checkbox is shown and must be ticked.
	EuConsentRequired bool
	// VATIDStatus and VATIDMessage: whether the VAT id typed counted, and why, for the
	// buyer (app.checkVATID); empty when none was typed.
	VATIDStatus, VATIDMessage string
	// ExpiringAllocations are tail allocations of add-ons the cart drops, and the user pools
	// the cart lowers below the users holding them (TargetType USER, TargetID the pool's
	// owner, AddOnCodes its add-on): the allocation service expires the newest assignments.
	ExpiringAllocations []Allocation
	RunwayAircraft      []string
}

// Has reports whether the cart contains code.
func (c *Cart) Has(code string) bool {
	for _, x := range c.AddOns {
		if x == code {
			return true
		}
	}
	return false
}

var uuidRe = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// ExtractAccountID answers the UUID inside a value ("#/account/{id}?x" or a bare id),
// lower case, or "" when there is none (spec 000 §5).
func ExtractAccountID(v string) string { return strings.ToLower(uuidRe.FindString(v)) }

// NormalizeEmail trims, turns spaces into plus signs (a '+' decoded from a URL arrives as a
// space) and ignores the test value (spec 000 §5).
func NormalizeEmail(v string) string {
	v = strings.ReplaceAll(strings.TrimSpace(v), " ", "+")
	if strings.EqualFold(v, TestEmail) {
		return ""
	}
	return v
}

var emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// ValidEmail reports whether v looks like an e-mail address.
func ValidEmail(v string) bool { return emailRe.MatchString(v) }

// NormalizeCountry upper-cases a country and maps 'eu' to DE (spec 000 §5, spec 001 §5).
func NormalizeCountry(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	if v == "EU" {
		return "DE"
	}
	return v
}

// ParseQuantity reads a typed quantity: ok is false when it is not a number. A number
// beyond ±1e9 (2147483647, 1e300) is still a number: it is answered as ±1e9, so the
// quantity rules clamp it to the maximum with the contact-sales message (spec 000 §5,
// "above maximum is clamped") instead of taking it for text and using the minimum.
func ParseQuantity(raw string) (int, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
		return 0, false
	}
	return int(max(min(f, 1e9), -1e9)), true
}
