package adapters

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"google.golang.org/grpc"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// CatalogKit is the outbound chain of calls to the catalog service: GetCatalog is a read,
// retried; it answers the whole catalogue, so it gets more time than a small call.
func CatalogKit(reg prometheus.Registerer) kitclient.Config {
	return kitclient.Config{Client: "catalog", Registry: reg, Timeout: 5 * time.Second, Idempotent: []string{"GetCatalog"}}
}

// CatalogClient reads the whole catalogue from the catalog service.
type CatalogClient struct {
	c catalogv1.CatalogServiceClient
}

// NewCatalogClient uses conn (a client connection to the catalog service).
func NewCatalogClient(conn grpc.ClientConnInterface) *CatalogClient {
	return &CatalogClient{c: catalogv1.NewCatalogServiceClient(conn)}
}

// Fetch answers the current catalogue, or nil when have is still current.
func (c *CatalogClient) Fetch(ctx context.Context, have string) (*domain.Catalog, error) {
	resp, err := c.c.GetCatalog(ctx, &catalogv1.GetCatalogRequest{IfVersionNot: have})
	if err != nil {
		return nil, fmt.Errorf("get catalogue: %w", err)
	}
	if resp.GetNotModified() {
		return nil, nil
	}
	return FromProto(resp)
}

func prices(m map[string]*catalogv1.Price) map[string]domain.Price {
	out := make(map[string]domain.Price, len(m))
	for k, v := range m {
		out[k] = domain.Price{AmountInCents: int64(v.GetAmountInCents()), Included: v.GetIncluded()}
	}
	return out
}

// FromProto converts the catalog service's answer into checkout's view of the catalogue.
func FromProto(resp *catalogv1.GetCatalogResponse) (*domain.Catalog, error) {
	d := domain.CatalogData{Version: resp.GetVersion(), EuropeanCountries: resp.GetEuropeanCountries(), BusinessIDCountries: resp.GetBusinessIdCountries()}
	for _, c := range resp.GetCurrencies() {
		d.Currencies = append(d.Currencies, domain.Currency{Code: c.GetCode(), Symbol: c.GetSymbol(), DefaultRegion: c.GetDefaultRegion(), DefaultCountry: c.GetDefaultCountry(), Default: c.GetDefault(),
			RateBasisPoints: int64(c.GetRateBasisPoints())})
	}
	for _, a := range resp.GetAircraft() {
		d.Aircraft = append(d.Aircraft, domain.Aircraft{Code: a.GetCode(), Model: a.GetModel(), AddOnCode: a.GetAddOnCode(), AUDPriced: a.GetAudPriced()})
	}
	for _, e := range resp.GetEntries() {
		de := domain.Entry{Code: e.GetAddOnCode(), Title: e.GetTitle(), Group: e.GetGroup(), Category: e.GetCategory(), PlanType: e.GetPlanType(),
			PlanTypeGroup: e.GetPlanTypeGroup(), PricingType: e.GetPricingType(), Order: int(e.GetOrder()), Prices: prices(e.GetPrice()),
			ForPlans: e.GetForPlans(), Exclude: e.GetExclude(), Hidden: e.GetHidden(), Deprecated: e.GetDeprecated(),
			DurationMonths: int(e.GetDurationMonths()), ReplacedBy: e.GetReplacedBy(), BusinessReplaced: e.GetBusinessReplacedBy(),
			NoRegionSelection: e.GetNoRegionSelection()}
		if n := e.GetNotAllowedWith(); n != nil {
			de.NotAllowed = domain.NotAllowedWith{Groups: n.GetGroups(), AddOns: n.GetAddOns(), MultiQuantity: n.GetMultiQuantity()}
		}
		if ch := e.GetChart(); ch != nil {
			de.Chart = &domain.Chart{Platform: ch.GetPlatform(), Counterpart: ch.GetCounterpart(), Scope: ch.GetScope(), Region: ch.GetRegion(), Legacy: ch.GetLegacy()}
		}
		if r := e.GetRunway(); r != nil {
			de.RunwayKind, de.RunwayMaker = r.GetKind(), r.GetManufacturer()
		}
		if m := e.GetMilitary(); m != nil {
			de.Military, de.MilitaryIntl, de.MilitarySupp = true, m.GetInternational(), m.GetSupplement()
		}
		if bf := e.GetBusinessFeature(); bf != nil {
			de.FeatureGroup = bf.GetGroup()
		}
		for _, t := range e.GetScheduledPrices() {
			de.Tiers = append(de.Tiers, domain.Tier{MinQuantity: int(t.GetMinQuantity()), Price: prices(t.GetPrice())})
		}
		if b := e.GetBundle(); b != nil {
			de.BundleIncludes, de.BundleQuantity = b.GetIncludes(), int(b.GetQuantity())
		}
		d.Entries = append(d.Entries, de)
	}
	return domain.NewCatalog(d)
}
