// Package domaintest builds checkout's domain catalogue straight from the catalog service's
// data file, for tests and benchmarks that must not start the catalog service.
package domaintest

import (
	"encoding/json"
	"fmt"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/hangar/hangar/services/catalog/data"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

type price struct{ domain.Price }

func (p *price) UnmarshalJSON(b []byte) error {
	if string(b) == `"included"` {
		p.Included = true
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	p.AmountInCents = n
	return err
}

type file struct {
	Version    string `json:"version"`
	Currencies []struct {
		Code, Symbol, DefaultRegion, DefaultCountry string
		Default                                     bool
	} `json:"currencies"`
	Entries []struct {
		AddOnCode, Title, Group, Category, PlanType, PricingType string
		PlanTypeGroup                                            string `json:"plan_type_group"`
		Order                                                    int
		Price                                                    map[string]price
		NotAllowedWith                                           *struct {
			Groups, AddOns []string
			MultiQuantity  bool
		} `json:"not_allowed_with"`
		ForPlans, Exclude                     []string
		Hidden, Deprecated, NoRegionSelection bool
		DurationMonths                        int
		ReplacedBy, BusinessReplacedBy        string
		Chart                                 *domain.Chart
		Runway                                *struct{ Kind, Manufacturer string }
		Military                              *struct{ International, Supplement bool }
		BusinessFeature                       *struct{ Group string }
		ScheduledPrices                       []struct {
			MinQuantity int
			Price       map[string]price
		}
		Bundle *struct {
			Includes []string
			Quantity int
		}
	} `json:"entries"`
	Aircraft []struct {
		Code, Model, AddOnCode string
		AUDPriced              bool `json:"audPriced"`
	} `json:"aircraft"`
	EuropeanCountries   []string `json:"europeanCountries"`
	BusinessIDCountries []string `json:"businessIdCountries"`
}

func prices(m map[string]price) map[string]domain.Price {
	out := make(map[string]domain.Price, len(m))
	for k, v := range m {
		out[k] = v.Price
	}
	return out
}

// Catalog answers the catalogue of services/catalog/data/catalog.yaml.
func Catalog() (*domain.Catalog, error) {
	d, err := CatalogData()
	if err != nil {
		return nil, err
	}
	return domain.NewCatalog(d)
}

// CatalogData answers the data of services/catalog/data/catalog.yaml, for a test that
// builds a changed catalogue from it (a new version, another price).
func CatalogData() (domain.CatalogData, error) {
	j, err := yaml.YAMLToJSON(data.Catalog)
	if err != nil {
		return domain.CatalogData{}, fmt.Errorf("catalogue yaml: %w", err)
	}
	var f file
	if err := json.Unmarshal(j, &f); err != nil {
		return domain.CatalogData{}, fmt.Errorf("catalogue json: %w", err)
	}
	d := domain.CatalogData{Version: f.Version, EuropeanCountries: f.EuropeanCountries, BusinessIDCountries: f.BusinessIDCountries}
	for _, c := range f.Currencies {
		d.Currencies = append(d.Currencies, domain.Currency{Code: c.Code, Symbol: c.Symbol, DefaultRegion: c.DefaultRegion, DefaultCountry: c.DefaultCountry, Default: c.Default})
	}
	for _, a := range f.Aircraft {
		d.Aircraft = append(d.Aircraft, domain.Aircraft{Code: a.Code, Model: a.Model, AddOnCode: a.AddOnCode, AUDPriced: a.AUDPriced})
	}
	for _, e := range f.Entries {
		de := domain.Entry{Code: e.AddOnCode, Title: e.Title, Group: e.Group, Category: e.Category, PlanType: e.PlanType,
			PlanTypeGroup: e.PlanTypeGroup, PricingType: e.PricingType, Order: e.Order, Prices: prices(e.Price),
			ForPlans: e.ForPlans, Exclude: e.Exclude, Hidden: e.Hidden, Deprecated: e.Deprecated, DurationMonths: e.DurationMonths,
			ReplacedBy: e.ReplacedBy, BusinessReplaced: e.BusinessReplacedBy, NoRegionSelection: e.NoRegionSelection, Chart: e.Chart}
		if n := e.NotAllowedWith; n != nil {
			de.NotAllowed = domain.NotAllowedWith{Groups: n.Groups, AddOns: n.AddOns, MultiQuantity: n.MultiQuantity}
		}
		if r := e.Runway; r != nil {
			de.RunwayKind, de.RunwayMaker = r.Kind, r.Manufacturer
		}
		if m := e.Military; m != nil {
			de.Military, de.MilitaryIntl, de.MilitarySupp = true, m.International, m.Supplement
		}
		if bf := e.BusinessFeature; bf != nil {
			de.FeatureGroup = bf.Group
		}
		for _, t := range e.ScheduledPrices {
			de.Tiers = append(de.Tiers, domain.Tier{MinQuantity: t.MinQuantity, Price: prices(t.Price)})
		}
		if b := e.Bundle; b != nil {
			de.BundleIncludes, de.BundleQuantity = b.Includes, b.Quantity
		}
		d.Entries = append(d.Entries, de)
	}
	return d, nil
}
