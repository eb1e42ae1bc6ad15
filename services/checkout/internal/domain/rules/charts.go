package rules

import (
	"slices"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// chartVariants answers the app and web codes of a coverage ("" when there is none).
func (b *builder) chartVariants(code string) (app, web string) {
	e, ok := b.cat.Entry(code)
	if !ok || e.Chart == nil {
		return "", ""
	}
	if e.Chart.Platform == "web" {
		return e.Chart.Counterpart, e.Code
	}
	return e.Code, e.Chart.Counterpart
}

// platformOf answers how a coverage is selected: App, Web, Both or "".
func (b *builder) platformOf(app, web string) string {
	a := app != "" && slices.Contains(b.codes, app)
	w := web != "" && slices.Contains(b.codes, web)
	switch {
	case a && w:
		return domain.PlatformBoth
	case a:
		return domain.PlatformApp
	case w:
		return domain.PlatformWeb
	}
	return ""
}

func (b *builder) setPlatform(app, web, platform string) {
	b.codes = slices.DeleteFunc(b.codes, func(c string) bool { return c != "" && (c == app || c == web) })
	if (platform == domain.PlatformApp || platform == domain.PlatformBoth) && app != "" {
		b.codes = append(b.codes, app)
	}
	if (platform == domain.PlatformWeb || platform == domain.PlatformBoth) && web != "" {
		b.codes = append(b.codes, web)
	}
}

// overlaps reports whether two coverages exclude one another on either platform.
func (b *builder) overlaps(a1, w1, a2, w2 string) bool {
	ex := func(x, y string) bool {
		if x == "" || y == "" {
			return false
		}
		e, ok := b.cat.Entry(x)
		return ok && slices.Contains(e.Exclude, y)
	}
	return ex(a1, a2) || ex(a2, a1) || ex(w1, w2) || ex(w2, w1)
}

// applyChartChoice applies a platform choice with the flips of spec 000 §4: against an
// overlapping coverage, Both versus Both unchecks the other, Both versus App switches the
// other to Web and Both versus Web switches it to App; a single platform versus Both moves
// the other to the opposite platform. Choosing a platform adds or removes the matching
// add-ons (so Both is priced twice). Military plans have no platform choice: the app
// variant is used.
func (b *builder) applyChartChoice(ch *domain.ChartChoice) {
	if ch == nil || strings.TrimSpace(ch.Code) == "" || b.cart.ChartsDisabled {
		return
	}
	app, web := b.chartVariants(strings.TrimSpace(ch.Code))
	if app == "" && web == "" {
		return
	}
	if !ch.Checked {
		b.setPlatform(app, web, "")
		return
	}
	platform := ch.Type
	switch {
	case b.cart.Military:
		platform = domain.PlatformApp
	case platform != domain.PlatformApp && platform != domain.PlatformWeb && platform != domain.PlatformBoth:
		platform = domain.PlatformApp
	}
	// Walk the other selected coverages once, each by its app/web pair.
	seen := map[string]bool{app: true, web: true}
	for _, code := range slices.Clone(b.codes) {
		if seen[code] {
			continue
		}
		oa, ow := b.chartVariants(code)
		if oa == "" && ow == "" {
			continue
		}
		seen[oa], seen[ow] = true, true
		if !b.overlaps(app, web, oa, ow) {
			continue
		}
		other := b.platformOf(oa, ow)
		next := other
		switch {
		case platform == domain.PlatformBoth && other == domain.PlatformBoth:
			next = ""
		case platform == domain.PlatformBoth && other == domain.PlatformApp:
			next = domain.PlatformWeb
		case platform == domain.PlatformBoth && other == domain.PlatformWeb:
			next = domain.PlatformApp
		case platform == domain.PlatformApp && other == domain.PlatformBoth:
			next = domain.PlatformWeb
		case platform == domain.PlatformWeb && other == domain.PlatformBoth:
			next = domain.PlatformApp
		}
		if next != other {
			b.setPlatform(oa, ow, next)
			b.adjust(code, "replaced", "chart platform of %s switched from %s to %s", b.title(code), other, orNone(next))
		}
	}
	b.setPlatform(app, web, platform)
}

func orNone(p string) string {
	if p == "" {
		return "none"
	}
	return p
}
