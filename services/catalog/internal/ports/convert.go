// Package ports exposes the catalogue over gRPC (and through grpc-gateway over REST), plus
// the one hot REST read served from precomputed bytes. Files here only convert: request in,
// domain call, response out; errors go through the platform's one mapping.
package ports

import (
	"fmt"
	"strings"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

func pbPrices(m map[string]domain.Price, only string) map[string]*catalogv1.Price {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]*catalogv1.Price, len(m))
	for cur, p := range m {
		if only != "" && cur != only {
			continue
		}
		out[cur] = pbPrice(p)
	}
	return out
}

func pbPrice(p domain.Price) *catalogv1.Price {
	// The catalogue's unit prices are far below int32's limit; domain.Parse keeps it so.
	return &catalogv1.Price{AmountInCents: int32(p.AmountInCents), Included: p.Included}
}

// description is the entry's description as text: markup (htmlDescription) is reduced to its
// text, never sent for a page to render.
func description(e *domain.Entry) string {
	if e.HTMLDescription {
		return plainText(e.Description)
	}
	return e.Description
}

func pbEntry(e *domain.Entry, only string) *catalogv1.Entry {
	out := &catalogv1.Entry{
		AddOnCode:          e.AddOnCode,
		Title:              e.Title,
		Description:        description(e),
		HtmlDescription:    false, // the description is always text (description)
		Group:              e.Group,
		Category:           e.Category,
		PlanType:           e.PlanType,
		PlanTypeGroup:      e.PlanTypeGroup,
		PricingType:        e.PricingType,
		Order:              int32(e.Order),
		Price:              pbPrices(e.Price, only),
		ForPlans:           e.ForPlans,
		Exclude:            e.Exclude,
		Hidden:             e.Hidden,
		Deprecated:         e.Deprecated,
		Byop:               e.BYOP,
		ByopDisclaimer:     e.BYOPDisclaimer,
		IconClassName:      e.IconClassName,
		DurationMonths:     int32(e.DurationMonths),
		ReplacedBy:         e.ReplacedBy,
		BusinessReplacedBy: e.BusinessReplacedBy,
		NoRegionSelection:  e.NoRegionSelection,
	}
	if n := e.NotAllowedWith; n != nil {
		out.NotAllowedWith = &catalogv1.NotAllowedWith{Groups: n.Groups, AddOns: n.AddOns, MultiQuantity: n.MultiQuantity}
	}
	if e.Image != nil {
		out.Image = &catalogv1.Image{Name: e.Image.Name, Style: e.Image.Style}
	}
	if c := e.Chart; c != nil {
		out.Chart = &catalogv1.Chart{Platform: c.Platform, Counterpart: c.Counterpart, Scope: c.Scope, Region: c.Region, Legacy: c.Legacy}
	}
	if r := e.Runway; r != nil {
		out.Runway = &catalogv1.Runway{Kind: r.Kind, Manufacturer: r.Manufacturer}
	}
	if m := e.Military; m != nil {
		out.Military = &catalogv1.Military{International: m.International, Supplement: m.Supplement}
	}
	if b := e.BusinessFeature; b != nil {
		out.BusinessFeature = &catalogv1.BusinessFeature{Group: b.Group, DispatchSize: b.DispatchSize}
	}
	out.ScheduledPrices = pbTiers(e.ScheduledPrices, only)
	if b := e.Bundle; b != nil {
		out.Bundle = &catalogv1.Bundle{Includes: b.Includes, Quantity: int32(b.Quantity)}
	}
	return out
}

func pbTiers(tiers []domain.PriceTier, only string) []*catalogv1.PriceTier {
	var out []*catalogv1.PriceTier
	for _, t := range tiers {
		out = append(out, &catalogv1.PriceTier{MinQuantity: int32(t.MinQuantity), Price: pbPrices(t.Price, only)})
	}
	return out
}

func pbCurrencies(cs []domain.Currency) []*catalogv1.Currency {
	out := make([]*catalogv1.Currency, 0, len(cs))
	for _, c := range cs {
		out = append(out, &catalogv1.Currency{Code: c.Code, Symbol: c.Symbol, DefaultRegion: c.DefaultRegion, DefaultCountry: c.DefaultCountry, Default: c.Default,
			RateBasisPoints: int32(c.RateBasisPoints)})
	}
	return out
}

// availablePlans builds the available-plans answer; currency "" keeps every currency.
func availablePlans(cat *domain.Catalog, currency string) *catalogv1.ListAvailablePlansResponse {
	resp := &catalogv1.ListAvailablePlansResponse{
		Version:    cat.Version(),
		Currencies: pbCurrencies(cat.Currencies()),
		Plans:      map[string]*catalogv1.PlanGroup{},
	}
	for _, g := range cat.AvailablePlans() {
		pg := &catalogv1.PlanGroup{Title: g.Group.Title}
		for i := range g.Entries {
			pg.Entries = append(pg.Entries, pbEntry(&g.Entries[i], currency))
		}
		resp.Plans[g.Group.Code] = pg
	}
	return resp
}

// splitCodes parses a comma list of add-on codes, dropping blanks and duplicates.
func splitCodes(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

func required(field, value string) error {
	if strings.TrimSpace(value) == "" {
		return errs.Field(field, fmt.Sprintf("%s is required", field))
	}
	return nil
}
