// Package domain holds the catalogue: the plans, add-ons, regions, chart coverages,
// VFR and runway-analysis packages the store sells, their per-currency prices and the
// rule metadata checkout needs. It knows nothing of SQL, protobuf or HTTP.
package domain

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Document is one version of the catalogue data file (services/catalog/data/catalog.yaml).
// The file is business data: a release of new prices is a new Version of this document.
type Document struct {
	// Version identifies this data release, e.g. "2026.11.0". Loading a document whose
	// version is already stored with a different checksum is refused.
	Version    string     `json:"version"`
	Currencies []Currency `json:"currencies"`
	Groups     []Group    `json:"groups"`
	Entries    []Entry    `json:"entries"`
	Aircraft   []Aircraft `json:"aircraft"`
	Avionics   []Avionics `json:"avionics"`
	Countries  []Country  `json:"countries"`
	// EuropeanCountries are the ISO codes used for business-id and EU handling (spec 000 §9).
	EuropeanCountries []string `json:"europeanCountries"`
	// BusinessIDCountries are the ISO codes where a business (VAT) id may be entered.
	BusinessIDCountries []string `json:"businessIdCountries"`
}

// Currency is a supported currency with its display symbol and checkout defaults.
type Currency struct {
	Code           string `json:"code"`
	Symbol         string `json:"symbol"`
	DefaultRegion  string `json:"defaultRegion"`
	DefaultCountry string `json:"defaultCountry,omitempty"`
	// RateBasisPoints documents how this currency's prices derive from USD
	// (10000 = 1.0); a test checks every price in the file against it.
	RateBasisPoints int  `json:"rateBasisPoints"`
	Default         bool `json:"default,omitempty"`
}

// Group is a response group of the available-plans call (spec 000 §3), in display order.
type Group struct {
	Code  string `json:"code"`
	Title string `json:"title"`
}

// Entry is a plan or add-on.
type Entry struct {
	AddOnCode       string `json:"addOnCode"`
	Title           string `json:"title"`
	Description     string `json:"description,omitempty"`
	HTMLDescription bool   `json:"htmlDescription,omitempty"`
	Group           string `json:"group"`
	// Category: PLAN, GEOGRAPHY, BUNDLE, FEATURE, PLAN_LEVEL, DYNAMIC, JEPPESEN, NON_TRADITIONAL_FEATURE.
	Category string `json:"category"`
	// PlanType: individual, business, military, feature, region, jeppesen,
	// nationalVfrPack, tailAllocation, oneOff, hiddenPlan, bundle, runway.
	PlanType      string `json:"planType"`
	PlanTypeGroup string `json:"plan_type_group,omitempty"`
	// PricingType: DEFAULT, PER_USER, USER_ALLOCATION, TAIL_ALLOCATION, PER_TAIL, PER_DEVICE, ANY_ALLOCATION.
	PricingType string `json:"pricingType,omitempty"`
	Order       int    `json:"order"`
	// Price per ISO currency code. A missing currency means the entry cannot be bought
	// in that currency; the value "included" means it comes with the plan at no charge.
	Price          map[string]Price `json:"price"`
	NotAllowedWith *NotAllowedWith  `json:"not_allowed_with,omitempty"`
	ForPlans       []string         `json:"forPlans,omitempty"`
	// Exclude lists codes that selecting this entry removes (e.g. a broader coverage
	// removes the narrower ones, a VFR combination removes its components).
	Exclude        []string `json:"exclude,omitempty"`
	Hidden         bool     `json:"hidden,omitempty"`
	Deprecated     bool     `json:"deprecated,omitempty"`
	BYOP           bool     `json:"byop,omitempty"`
	BYOPDisclaimer string   `json:"byopDisclaimer,omitempty"`
	IconClassName  string   `json:"iconClassName,omitempty"`
	Image          *Image   `json:"image,omitempty"`
	// DurationMonths is the term length; 12 unless stated (3 for the three-month plan).
	DurationMonths int `json:"durationMonths,omitempty"`
	// ReplacedBy names the current entry that replaces a legacy entry;
	// BusinessReplacedBy the replacement for a legacy business geography plan.
	ReplacedBy         string `json:"replacedBy,omitempty"`
	BusinessReplacedBy string `json:"businessReplacedBy,omitempty"`
	// NoRegionSelection marks plans not available for region selection (spec 000 §6).
	NoRegionSelection bool `json:"noRegionSelection,omitempty"`
	// Chart describes a chart-provider coverage (app or web variant).
	Chart *Chart `json:"chart,omitempty"`
	// Runway describes a runway-analysis package.
	Runway *Runway `json:"runway,omitempty"`
	// Military marks a military plan or supplement.
	Military *Military `json:"military,omitempty"`
	// BusinessFeature marks a business feature (dispatch, runway, efb_bridge,
	// runway_analysis_ba, flight_tracking) and, for dispatch, its size.
	BusinessFeature *BusinessFeature `json:"businessFeature,omitempty"`
	// ScheduledPrices are quantity-based per-licence prices for business plans,
	// ordered by MinQuantity ascending; the first tier starts at the plan's minimum.
	ScheduledPrices []PriceTier `json:"scheduledPrices,omitempty"`
	// Bundle lists what a bundle contains.
	Bundle *Bundle `json:"bundle,omitempty"`
}

// NotAllowedWith names what an entry cannot be combined with.
type NotAllowedWith struct {
	Groups        []string `json:"groups,omitempty"`
	AddOns        []string `json:"addOns,omitempty"`
	MultiQuantity bool     `json:"multiQuantity,omitempty"`
}

// Image is a picture shown beside an entry.
type Image struct {
	Name  string `json:"name"`
	Style string `json:"style,omitempty"`
}

// Chart describes a chart-provider coverage.
type Chart struct {
	// Platform is "app" or "web".
	Platform string `json:"platform"`
	// Counterpart is the code of the other platform's variant (x <-> x_web).
	Counterpart string `json:"counterpart,omitempty"`
	// Scope is "worldwide", "regional", "country" or "supplement".
	Scope string `json:"scope"`
	// Region is a free label of the covered area ("Europe", "Canada/Alaska", ...).
	Region string `json:"region,omitempty"`
	// Legacy marks the legacy IFR block (jepp_northern_europe, jepp_trans_atlantic).
	Legacy bool `json:"legacy,omitempty"`
}

// Runway describes a runway-analysis package.
type Runway struct {
	// Kind is "jet", "turboprop" or "bundle" (the jet-maker bundle's model options).
	Kind         string `json:"kind"`
	Manufacturer string `json:"manufacturer"`
}

// Military marks a military plan.
type Military struct {
	International bool `json:"international,omitempty"`
	// Supplement marks a chart-provider military supplement rather than a plan.
	Supplement bool `json:"supplement,omitempty"`
}

// BusinessFeature marks a business feature entry.
type BusinessFeature struct {
	Group        string `json:"group"`
	DispatchSize string `json:"dispatchSize,omitempty"`
}

// PriceTier is one step of a quantity-based price schedule.
type PriceTier struct {
	MinQuantity int              `json:"minQuantity"`
	Price       map[string]Price `json:"price"`
}

// Bundle describes what a bundle contains.
type Bundle struct {
	Includes []string `json:"includes,omitempty"`
	// Quantity is the fixed licence quantity of the bundle.
	Quantity int `json:"quantity,omitempty"`
}

// Aircraft is a model covered by a runway-analysis package.
type Aircraft struct {
	Code         string `json:"code"`
	Manufacturer string `json:"manufacturer"`
	Model        string `json:"model"`
	Family       string `json:"family"`
	Kind         string `json:"kind"`
	// AddOnCode is the runway-analysis package that covers this model.
	AddOnCode string `json:"addOnCode"`
	// AUDPriced marks the models whose runway analysis is sold in AUD (spec 000 §5).
	AUDPriced bool `json:"audPriced,omitempty"`
}

// Avionics is a panel-avionics model with the chart-provider add-ons sold for it.
type Avionics struct {
	Manufacturer string `json:"manufacturer"`
	Model        string `json:"model"`
	Title        string `json:"title"`
	// Category: navdata, panel charts, databases.
	Category   string   `json:"category"`
	AddOnCodes []string `json:"addOnCodes"`
}

// Country is a name and ISO 3166-1 alpha-2 code.
type Country struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// Price is an amount in minor units, or "included" with the plan.
type Price struct {
	AmountInCents int64
	Included      bool
}

// MarshalJSON writes the amount as a number, or the string "included".
func (p Price) MarshalJSON() ([]byte, error) {
	if p.Included {
		return []byte(`"included"`), nil
	}
	return strconv.AppendInt(nil, p.AmountInCents, 10), nil
}

// UnmarshalJSON reads an integer amount of minor units or the string "included".
func (p *Price) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != "included" {
			return fmt.Errorf("price %q: want minor units or \"included\"", s)
		}
		*p = Price{Included: true}
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("price %s: want an integer amount of minor units: %w", b, err)
	}
	if n < 0 {
		return fmt.Errorf("price %d: negative", n)
	}
	*p = Price{AmountInCents: n}
	return nil
}
