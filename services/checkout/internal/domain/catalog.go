// Package domain is checkout's shared vocabulary in plain Go: its view of the catalogue,
// the configuration as the page sends it (Input), the cart the rules make of it, the
// subscription it prices against and the buyer's account. The work is done in the
// subpackages: rules (configuration rules and validation), pricing (the invoice preview,
// plan change and quote), tax, promotion (promo codes and gift certificates), gift and
// oneoff (gift-certificate and one-off purchases). It knows nothing of SQL, protobuf or
// HTTP; the catalogue is filled by an adapter from the catalog service.
package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Price is a unit price in minor units, or included with the plan (zero).
type Price struct {
	AmountInCents int64
	Included      bool
}

// NotAllowedWith names what an entry cannot be combined with.
type NotAllowedWith struct {
	Groups        []string
	AddOns        []string
	MultiQuantity bool
}

// Chart describes a chart-provider coverage; Platform is "app" or "web".
type Chart struct {
	Platform    string
	Counterpart string
	Scope       string
	Region      string
	Legacy      bool
}

// Tier is one step of a business plan's quantity price schedule.
type Tier struct {
	MinQuantity int
	Price       map[string]Price
}

// Entry is checkout's view of a catalogue plan or add-on: what pricing and the rules need.
type Entry struct {
	Code              string
	Title             string
	Group             string
	Category          string
	PlanType          string
	PlanTypeGroup     string
	PricingType       string
	Order             int
	Prices            map[string]Price
	NotAllowed        NotAllowedWith
	ForPlans          []string
	Exclude           []string
	Hidden            bool
	Deprecated        bool
	DurationMonths    int
	ReplacedBy        string
	BusinessReplaced  string
	NoRegionSelection bool
	Chart             *Chart
	RunwayKind        string
	RunwayMaker       string
	Military          bool
	MilitaryIntl      bool
	MilitarySupp      bool
	FeatureGroup      string
	Tiers             []Tier
	BundleIncludes    []string
	BundleQuantity    int
}

// IsPlan reports whether the entry is a plan (one per configuration).
func (e *Entry) IsPlan() bool {
	return e.Category == "PLAN" || e.Category == "BUNDLE" && e.PlanType == "bundle"
}

// IsRegion reports whether the entry is a geography add-on.
func (e *Entry) IsRegion() bool { return e.Category == "GEOGRAPHY" }

// IsIncludedRegion reports whether the entry is a region included with the plan.
func (e *Entry) IsIncludedRegion() bool {
	return e.IsRegion() && strings.HasPrefix(e.Code, "included_")
}

// IsChart reports whether the entry is a chart-provider IFR coverage or supplement sold
// with an App/Web choice (not the VFR procedure charts, which have one platform).
func (e *Entry) IsChart() bool {
	return e.Chart != nil && (e.Group == "JEPPESEN_PLANS" || e.Group == "WEB_JEPPESEN_PLANS" ||
		e.Group == "JEPPESEN_MILITARY_SUPPLEMENT_PLANS_APP" || e.Group == "JEPPESEN_MILITARY_SUPPLEMENT_PLANS_WEB")
}

// IsRunway reports whether the entry is a runway-analysis package or bundle model option.
func (e *Entry) IsRunway() bool {
	return e.RunwayKind != "" || e.FeatureGroup == "runway" || e.FeatureGroup == "runway_analysis_ba"
}

// Months answers the term length.
func (e *Entry) Months() int {
	if e.DurationMonths > 0 {
		return e.DurationMonths
	}
	return 12
}

// Currency is a supported currency with its symbol and defaults (spec 000 §9).
type Currency struct {
	Code           string
	Symbol         string
	DefaultRegion  string
	DefaultCountry string
	Default        bool
	// RateBasisPoints is the catalogue's rate to USD (10000 = 1.0; 0: unknown, taken as 1.0).
	RateBasisPoints int64
}

// ToUSD converts amount (minor units of c) into USD minor units with the catalogue's rate,
// rounded up: a limit kept in USD is never passed by rounding.
func (c Currency) ToUSD(amount int64) int64 {
	r := c.rate()
	return (amount*10000 + r - 1) / r
}

// FromUSD converts a USD amount (minor units) into c's minor units, rounded down: the most
// of c that stays within the USD amount.
func (c Currency) FromUSD(usd int64) int64 { return usd * c.rate() / 10000 }

func (c Currency) rate() int64 {
	if c.RateBasisPoints <= 0 {
		return 10000
	}
	return c.RateBasisPoints
}

// Aircraft is a runway-analysis model; AUDPriced models may be bought in AUD.
type Aircraft struct {
	Code      string
	Model     string
	AddOnCode string
	AUDPriced bool
}

// Catalog is an immutable, indexed catalogue version. Safe for concurrent use.
type Catalog struct {
	version     string
	currencies  []Currency
	byCurrency  map[string]Currency
	entries     map[string]*Entry
	audRunway   map[string]bool // runway package code -> sold in AUD (some model is AUD-priced)
	aircraft    map[string]Aircraft
	european    map[string]bool
	businessIDs map[string]bool
}

// CatalogData is what NewCatalog indexes.
type CatalogData struct {
	Version             string
	Currencies          []Currency
	Entries             []Entry
	Aircraft            []Aircraft
	EuropeanCountries   []string
	BusinessIDCountries []string
}

// NewCatalog indexes d. Dangling references are errors, so a rule cannot silently vanish.
func NewCatalog(d CatalogData) (*Catalog, error) {
	c := &Catalog{
		version: d.Version, currencies: d.Currencies, byCurrency: map[string]Currency{},
		entries: make(map[string]*Entry, len(d.Entries)), audRunway: map[string]bool{},
		european: map[string]bool{}, businessIDs: map[string]bool{}, aircraft: map[string]Aircraft{},
	}
	for _, cur := range d.Currencies {
		c.byCurrency[cur.Code] = cur
	}
	if len(c.byCurrency) == 0 {
		return nil, fmt.Errorf("catalogue %s: no currencies", d.Version)
	}
	for i := range d.Entries {
		e := d.Entries[i]
		c.entries[e.Code] = &e
	}
	for _, a := range d.Aircraft {
		c.aircraft[a.Code] = a
		if a.AUDPriced {
			c.audRunway[a.AddOnCode] = true
		}
	}
	for _, x := range d.EuropeanCountries {
		c.european[strings.ToUpper(x)] = true
	}
	for _, x := range d.BusinessIDCountries {
		c.businessIDs[strings.ToUpper(x)] = true
	}
	for _, cur := range d.Currencies {
		if cur.DefaultRegion != "" && c.entries[cur.DefaultRegion] == nil {
			return nil, fmt.Errorf("catalogue %s: currency %s default region %s is not an entry", d.Version, cur.Code, cur.DefaultRegion)
		}
	}
	for _, code := range []string{StartPlan, MilitaryStartPlan, MilitaryIntlStartPlan, BundlePlan, DowngradePlan} {
		if c.entries[code] == nil {
			return nil, fmt.Errorf("catalogue %s: start plan %s missing", d.Version, code)
		}
	}
	return c, nil
}

// Version is the catalogue data version.
func (c *Catalog) Version() string { return c.version }

// Entry answers an entry by code.
func (c *Catalog) Entry(code string) (*Entry, bool) {
	e, ok := c.entries[code]
	return e, ok
}

// Currencies answers the supported currencies.
func (c *Catalog) Currencies() []Currency { return slices.Clone(c.currencies) }

// Currency answers a supported currency; ok is false for unknown codes.
func (c *Catalog) Currency(code string) (Currency, bool) {
	cur, ok := c.byCurrency[strings.ToUpper(strings.TrimSpace(code))]
	return cur, ok
}

// CurrencyOrDefault answers a supported currency, or the default currency for an unknown
// or empty code (spec 000 §9): the buyer's pages fall back rather than refuse.
func (c *Catalog) CurrencyOrDefault(code string) Currency {
	if cur, ok := c.Currency(code); ok {
		return cur
	}
	return c.DefaultCurrency()
}

// DefaultCurrency answers USD (the fallback for unknown currencies, spec 000 §9).
func (c *Catalog) DefaultCurrency() Currency {
	for _, cur := range c.currencies {
		if cur.Default {
			return cur
		}
	}
	return c.currencies[0]
}

// IsEuropean reports whether an ISO country code is on the European list (spec 000 §9).
func (c *Catalog) IsEuropean(country string) bool { return c.european[strings.ToUpper(country)] }

// AllowsBusinessID reports whether a business id may be entered for a country.
func (c *Catalog) AllowsBusinessID(country string) bool {
	return c.businessIDs[strings.ToUpper(country)]
}

// RunwaySoldInAUD reports whether a runway-analysis package covers an AUD-priced model.
func (c *Catalog) RunwaySoldInAUD(code string) bool { return c.audRunway[code] }

// Aircraft answers a runway-analysis aircraft model by code.
func (c *Catalog) Aircraft(code string) (Aircraft, bool) {
	a, ok := c.aircraft[strings.TrimSpace(code)]
	return a, ok
}
