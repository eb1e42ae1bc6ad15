package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Licence quantity bounds of business plans (spec 000 §5); the fleet-price schedule ends
// at the maximum, above which buyers contact sales.
const (
	BusinessMinQuantity = 2
	MaxQuantity         = 100
)

// Catalog is an immutable, validated, indexed catalogue version. It is safe for concurrent
// use; a new data version is a new Catalog swapped in by the service.
type Catalog struct {
	doc        Document
	checksum   string
	byCode     map[string]*Entry
	currencies map[string]Currency
	groups     map[string]Group
	avionics   map[string][]*Avionics // "manufacturer/model", lower case; one row per category
}

// Parse decodes and validates a catalogue data file (YAML or JSON). Unknown keys are errors,
// so a misspelt field cannot silently drop a rule.
func Parse(data []byte) (*Catalog, error) {
	var doc Document
	if err := yaml.UnmarshalStrict(data, &doc); err != nil {
		return nil, fmt.Errorf("decode catalogue: %w", err)
	}
	return New(doc)
}

// New validates doc and indexes it.
func New(doc Document) (*Catalog, error) {
	canon, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode catalogue: %w", err)
	}
	sum := sha256.Sum256(canon)
	c := &Catalog{
		doc:        doc,
		checksum:   hex.EncodeToString(sum[:]),
		byCode:     make(map[string]*Entry, len(doc.Entries)),
		currencies: map[string]Currency{},
		groups:     map[string]Group{},
		avionics:   map[string][]*Avionics{},
	}
	if err := c.index(); err != nil {
		return nil, fmt.Errorf("catalogue %s: %w", doc.Version, err)
	}
	return c, nil
}

func (c *Catalog) index() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.doc.Version == "" {
		bad("version is empty")
	}
	defaults := 0
	for _, cur := range c.doc.Currencies {
		if len(cur.Code) != 3 || strings.ToUpper(cur.Code) != cur.Code {
			bad("currency %q: want an ISO 4217 code", cur.Code)
		}
		if _, dup := c.currencies[cur.Code]; dup {
			bad("currency %s listed twice", cur.Code)
		}
		if cur.Default {
			defaults++
		}
		c.currencies[cur.Code] = cur
	}
	if defaults != 1 {
		bad("want exactly one default currency, have %d", defaults)
	}
	for _, g := range c.doc.Groups {
		if _, dup := c.groups[g.Code]; dup {
			bad("group %s listed twice", g.Code)
		}
		c.groups[g.Code] = g
	}
	for i := range c.doc.Entries {
		e := &c.doc.Entries[i]
		if e.AddOnCode == "" {
			bad("entry %d has no addOnCode", i)
			continue
		}
		if _, dup := c.byCode[e.AddOnCode]; dup {
			bad("entry %s listed twice", e.AddOnCode)
		}
		c.byCode[e.AddOnCode] = e
		if _, ok := c.groups[e.Group]; !ok {
			bad("entry %s: unknown group %q", e.AddOnCode, e.Group)
		}
		if e.Title == "" {
			bad("entry %s: no title", e.AddOnCode)
		}
		for cur := range e.Price {
			if _, ok := c.currencies[cur]; !ok {
				bad("entry %s: price in unknown currency %s", e.AddOnCode, cur)
			}
		}
		if _, ok := e.Price[c.DefaultCurrency().Code]; !ok && !e.Deprecated {
			bad("entry %s: no price in the default currency", e.AddOnCode)
		}
		for j, tier := range e.ScheduledPrices {
			if j > 0 && tier.MinQuantity <= e.ScheduledPrices[j-1].MinQuantity {
				bad("entry %s: scheduled price tiers not ascending", e.AddOnCode)
			}
		}
	}
	for _, cur := range c.doc.Currencies {
		if cur.DefaultRegion != "" && c.byCode[cur.DefaultRegion] == nil {
			bad("currency %s: default region %s is not an entry", cur.Code, cur.DefaultRegion)
		}
	}
	ref := func(owner, what, code string) {
		if _, ok := c.byCode[code]; !ok {
			bad("entry %s: %s names unknown code %q", owner, what, code)
		}
	}
	for _, e := range c.doc.Entries {
		for _, x := range e.ForPlans {
			ref(e.AddOnCode, "forPlans", x)
		}
		for _, x := range e.Exclude {
			ref(e.AddOnCode, "exclude", x)
		}
		if e.NotAllowedWith != nil {
			for _, x := range e.NotAllowedWith.AddOns {
				ref(e.AddOnCode, "not_allowed_with.addOns", x)
			}
			for _, g := range e.NotAllowedWith.Groups {
				if _, ok := c.groups[g]; !ok {
					bad("entry %s: not_allowed_with.groups names unknown group %q", e.AddOnCode, g)
				}
			}
		}
		for _, x := range []string{e.ReplacedBy, e.BusinessReplacedBy} {
			if x != "" {
				ref(e.AddOnCode, "replacement", x)
			}
		}
		if e.Chart != nil && e.Chart.Counterpart != "" {
			ref(e.AddOnCode, "chart.counterpart", e.Chart.Counterpart)
		}
		if e.Bundle != nil {
			for _, x := range e.Bundle.Includes {
				ref(e.AddOnCode, "bundle.includes", x)
			}
		}
	}
	for _, a := range c.doc.Aircraft {
		if e, ok := c.byCode[a.AddOnCode]; !ok || e.Runway == nil {
			bad("aircraft %s: %q is not a runway-analysis package", a.Code, a.AddOnCode)
		}
	}
	for i := range c.doc.Avionics {
		a := &c.doc.Avionics[i]
		for _, x := range a.AddOnCodes {
			if _, ok := c.byCode[x]; !ok {
				bad("avionics %s/%s: unknown add-on %q", a.Manufacturer, a.Model, x)
			}
		}
		k := avionicsKey(a.Manufacturer, a.Model)
		c.avionics[k] = append(c.avionics[k], a)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%d problems: %s", len(problems), strings.Join(problems, "; "))
	}
	return nil
}

func avionicsKey(manufacturer, model string) string {
	return strings.ToLower(manufacturer) + "/" + strings.ToLower(model)
}

// Version is the data version.
func (c *Catalog) Version() string { return c.doc.Version }

// Checksum is the SHA-256 of the canonical encoding; two loads of the same data agree.
func (c *Catalog) Checksum() string { return c.checksum }

// Document answers the underlying document (read-only by convention).
func (c *Catalog) Document() *Document { return &c.doc }

// Currencies answers the supported currencies in file order.
func (c *Catalog) Currencies() []Currency { return c.doc.Currencies }

// DefaultCurrency answers the currency used when none or an unknown one is asked for.
func (c *Catalog) DefaultCurrency() Currency {
	for _, cur := range c.doc.Currencies {
		if cur.Default {
			return cur
		}
	}
	return Currency{Code: "USD", Symbol: "$"}
}

// Currency resolves an ISO code (case-insensitive). Unknown codes are Invalid errors.
func (c *Catalog) Currency(code string) (Currency, error) {
	cur, ok := c.currencies[strings.ToUpper(strings.TrimSpace(code))]
	if !ok {
		return Currency{}, &errs.Error{Code: errs.Invalid, Message: fmt.Sprintf("unknown currency %q: want one of %s", code, strings.Join(c.currencyCodes(), ", ")),
			Fields: []errs.FieldError{{Field: "currency", Message: fmt.Sprintf("unknown currency %q", code)}}}
	}
	return cur, nil
}

func (c *Catalog) currencyCodes() []string {
	out := make([]string, 0, len(c.doc.Currencies))
	for _, cur := range c.doc.Currencies {
		out = append(out, cur.Code)
	}
	return out
}

// Entry answers one entry by code, including hidden and deprecated ones.
func (c *Catalog) Entry(code string) (*Entry, bool) {
	e, ok := c.byCode[code]
	return e, ok
}

// Entries answers the named entries in the order asked. Unknown codes are one Invalid
// error naming all of them.
func (c *Catalog) Entries(codes []string) ([]*Entry, error) {
	out := make([]*Entry, 0, len(codes))
	var unknown []string
	for _, code := range codes {
		e, ok := c.byCode[code]
		if !ok {
			unknown = append(unknown, code)
			continue
		}
		out = append(out, e)
	}
	if len(unknown) > 0 {
		msg := fmt.Sprintf("unknown add-on code(s): %s", strings.Join(unknown, ", "))
		return nil, &errs.Error{Code: errs.Invalid, Message: msg, Fields: []errs.FieldError{{Field: "addOnCodes", Message: msg}}}
	}
	return out, nil
}

// AllEntries answers every entry in file order.
func (c *Catalog) AllEntries() []Entry { return c.doc.Entries }

// GroupView is a response group with its public entries in display order.
type GroupView struct {
	Group   Group
	Entries []Entry
}

// AvailablePlans answers the public catalogue: every group with its entries sorted by
// order, deprecated entries left out (spec 001 §3). Empty groups are left out.
func (c *Catalog) AvailablePlans() []GroupView {
	var out []GroupView
	for _, g := range c.doc.Groups {
		var es []Entry
		for _, e := range c.doc.Entries {
			if e.Group == g.Code && !e.Deprecated {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			continue
		}
		slices.SortStableFunc(es, func(a, b Entry) int { return a.Order - b.Order })
		out = append(out, GroupView{Group: g, Entries: es})
	}
	return out
}

// UnitPrice answers an entry's unit price in a currency, or an Invalid error saying it is
// not sold in that currency ('Unavailable in {symbol}{currency}', spec 000 §5).
func (c *Catalog) UnitPrice(e *Entry, cur Currency) (Price, error) {
	p, ok := e.Price[cur.Code]
	if !ok {
		return Price{}, errs.Field("addOnCodes", fmt.Sprintf("%s: Unavailable in %s%s", e.AddOnCode, cur.Symbol, cur.Code))
	}
	return p, nil
}

// ScheduledPrice answers a business plan's per-licence price at quantity: the tier with the
// largest minimum not above quantity, or the plan's own price when it has no schedule.
func (c *Catalog) ScheduledPrice(e *Entry, quantity int, cur Currency) (Price, int, error) {
	tierMin := 0
	var p Price
	found := false
	for _, t := range e.ScheduledPrices {
		if t.MinQuantity <= quantity {
			if tp, ok := t.Price[cur.Code]; ok {
				p, tierMin, found = tp, t.MinQuantity, true
			}
		}
	}
	if found {
		return p, tierMin, nil
	}
	p, err := c.UnitPrice(e, cur)
	return p, 1, err
}

// ScheduledPlans answers the business plans that have a price schedule, in display order.
func (c *Catalog) ScheduledPlans() []*Entry {
	var out []*Entry
	for i := range c.doc.Entries {
		e := &c.doc.Entries[i]
		if len(e.ScheduledPrices) > 0 && !e.Deprecated {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b *Entry) int { return a.Order - b.Order })
	return out
}

// Avionics answers the rows (one per category) of an avionics model; unknown models are NotFound.
func (c *Catalog) Avionics(manufacturer, model string) ([]*Avionics, error) {
	rows, ok := c.avionics[avionicsKey(manufacturer, model)]
	if !ok {
		return nil, errs.E(errs.NotFound, "no avionics add-on for %s %s", manufacturer, model)
	}
	return rows, nil
}
