package tax

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RatesFile is the rates table in force, embedded in the binary. A rate change is a new
// file (new version and effective date) named here, reviewed like a price change.
const RatesFile = "data/rates-2025-01-01.json"

//go:embed data/rates-2025-01-01.json
var ratesFile []byte

// current is loaded when the package initialises, so a malformed file stops every binary
// (and every test) at start instead of mispricing.
var current = mustLoad(ratesFile)

// Table is one validated version of the tax rates. Rates are in parts per million.
type Table struct {
	// Version names the table in quotes, logs and metrics.
	Version string
	// EffectiveFrom is the date (YYYY-MM-DD) the rates are in force from.
	EffectiveFrom string
	usState       map[string]int64
	caGST         int64
	caHST         map[string]int64
	caPST         map[string]Component
	euVAT         map[string]int64
	gbVAT, auGST  int64
}

// Rates answers the table in force.
func Rates() *Table { return current }

// ratesJSON is the file's shape; rates are percentages with at most four decimals.
type ratesJSON struct {
	Version       string                 `json:"version"`
	EffectiveFrom string                 `json:"effectiveFrom"`
	Sources       string                 `json:"sources"`
	USSalesTax    map[string]json.Number `json:"usSalesTax"`
	CAGST         json.Number            `json:"caGST"`
	CAHST         map[string]json.Number `json:"caHST"`
	CAPST         map[string]struct {
		Name string      `json:"name"`
		Rate json.Number `json:"rate"`
	} `json:"caPST"`
	EUVAT map[string]json.Number `json:"euVAT"`
	GBVAT json.Number            `json:"gbVAT"`
	AUGST json.Number            `json:"auGST"`
}

func mustLoad(b []byte) *Table {
	t, err := Load(b)
	if err != nil {
		panic(fmt.Sprintf("tax rates %s: %v", RatesFile, err))
	}
	return t
}

// Load parses and validates a rates file: known fields only, a version, an effective
// date, a rate for every US state the ZIP table answers (and no other), the Canadian
// provinces the postal table answers, two-letter EU countries, and every rate a
// percentage from 0 to 100 with at most four decimals.
func Load(b []byte) (*Table, error) {
	var f ratesJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode: data after the table")
	}
	if strings.TrimSpace(f.Version) == "" {
		return nil, errors.New("version is missing")
	}
	if _, err := time.Parse(time.DateOnly, f.EffectiveFrom); err != nil {
		return nil, fmt.Errorf("effectiveFrom %q is not a date (YYYY-MM-DD)", f.EffectiveFrom)
	}
	t := &Table{Version: f.Version, EffectiveFrom: f.EffectiveFrom}
	p := &rateParser{}
	t.usState = p.us(f.USSalesTax)
	t.caGST = p.rate("caGST", f.CAGST)
	t.caHST = p.provinces("caHST", f.CAHST)
	t.caPST = map[string]Component{}
	for pr, c := range f.CAPST {
		p.province("caPST", pr)
		if strings.TrimSpace(c.Name) == "" {
			p.fail("caPST.%s: name is missing", pr)
		}
		if _, ok := t.caHST[pr]; ok {
			p.fail("caPST.%s: the province also has HST", pr)
		}
		t.caPST[pr] = Component{c.Name, p.rate("caPST."+pr, c.Rate)}
	}
	t.euVAT = p.countries("euVAT", f.EUVAT)
	t.gbVAT = p.rate("gbVAT", f.GBVAT)
	t.auGST = p.rate("auGST", f.AUGST)
	if err := errors.Join(p.errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// rateParser collects every problem of a file, so one run names them all.
type rateParser struct{ errs []error }

func (p *rateParser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

var percentRe = regexp.MustCompile(`^([0-9]{1,3})(?:\.([0-9]{1,4}))?$`)

// rate turns a percentage ("9.975") into parts per million exactly, without floats.
func (p *rateParser) rate(field string, n json.Number) int64 {
	m := percentRe.FindStringSubmatch(string(n))
	if m == nil {
		p.fail("%s: %q is not a percentage with at most four decimals", field, string(n))
		return 0
	}
	whole, _ := strconv.ParseInt(m[1], 10, 64)
	frac, _ := strconv.ParseInt((m[2] + "0000")[:4], 10, 64)
	ppm := whole*10_000 + frac
	if ppm > 1_000_000 {
		p.fail("%s: %s%% is above 100%%", field, string(n))
	}
	return ppm
}

// us checks that every state the ZIP table answers has a rate, and nothing else does.
func (p *rateParser) us(in map[string]json.Number) map[string]int64 {
	out := make(map[string]int64, len(in))
	for st, n := range in {
		if !slices.ContainsFunc(zip3, func(z zipRange) bool { return z.state == st }) {
			p.fail("usSalesTax.%s: no ZIP code maps to this state", st)
		}
		out[st] = p.rate("usSalesTax."+st, n)
	}
	missing := map[string]bool{}
	for _, z := range zip3 {
		if _, ok := in[z.state]; !ok && !missing[z.state] {
			missing[z.state] = true
			p.fail("usSalesTax: no rate for %s", z.state)
		}
	}
	return out
}

func (p *rateParser) province(field, pr string) {
	for c := 'A'; c <= 'Z'; c++ {
		if ProvinceFromPostal(string(c)) == pr {
			return
		}
	}
	p.fail("%s.%s: no postal code maps to this province", field, pr)
}

func (p *rateParser) provinces(field string, in map[string]json.Number) map[string]int64 {
	out := make(map[string]int64, len(in))
	for pr, n := range in {
		p.province(field, pr)
		out[pr] = p.rate(field+"."+pr, n)
	}
	return out
}

var countryRe = regexp.MustCompile(`^[A-Z]{2}$`)

func (p *rateParser) countries(field string, in map[string]json.Number) map[string]int64 {
	if len(in) == 0 {
		p.fail("%s: no countries", field)
	}
	out := make(map[string]int64, len(in))
	for c, n := range in {
		if !countryRe.MatchString(c) {
			p.fail("%s.%s: not an ISO country code", field, c)
		}
		out[c] = p.rate(field+"."+c, n)
	}
	return out
}
