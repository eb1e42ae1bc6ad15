package ports

import (
	"context"
	"errors"
	"fmt"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

// Catalogs answers the active catalogue (app.Catalogs).
type Catalogs interface {
	Current() (*domain.Catalog, error)
}

// GRPC implements catalogv1.CatalogServiceServer.
type GRPC struct {
	catalogv1.UnimplementedCatalogServiceServer
	cats Catalogs
}

// NewGRPC serves cats.
func NewGRPC(cats Catalogs) *GRPC { return &GRPC{cats: cats} }

func (s *GRPC) ListAvailablePlans(_ context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	only := ""
	if req.GetCurrency() != "" {
		cur, err := cat.Currency(req.GetCurrency())
		if err != nil {
			return nil, err
		}
		only = cur.Code
	}
	return availablePlans(cat, only), nil
}

func (s *GRPC) GetAddOnPrices(_ context.Context, req *catalogv1.GetAddOnPricesRequest) (*catalogv1.GetAddOnPricesResponse, error) {
	if err := required("addOnCodes", req.GetAddOnCodes()); err != nil {
		return nil, err
	}
	if err := required("currency", req.GetCurrency()); err != nil {
		return nil, err
	}
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	cur, err := cat.Currency(req.GetCurrency())
	if err != nil {
		return nil, err
	}
	entries, err := cat.Entries(splitCodes(req.GetAddOnCodes()))
	if err != nil {
		return nil, err
	}
	resp := &catalogv1.GetAddOnPricesResponse{Version: cat.Version(), Currency: cur.Code}
	for _, e := range entries {
		p, err := cat.UnitPrice(e, cur)
		if err != nil {
			return nil, err
		}
		resp.Prices = append(resp.Prices, &catalogv1.AddOnPrice{AddOnCode: e.AddOnCode, Title: e.Title, AmountInCents: int32(p.AmountInCents), Included: p.Included})
	}
	return resp, nil
}

func (s *GRPC) GetScheduledPrices(_ context.Context, req *catalogv1.GetScheduledPricesRequest) (*catalogv1.GetScheduledPricesResponse, error) {
	if err := required("currency", req.GetCurrency()); err != nil {
		return nil, err
	}
	q := int(req.GetQuantity())
	switch {
	case q == 0:
		return nil, errs.Field("quantity", "quantity is required")
	case q < domain.BusinessMinQuantity:
		return nil, errs.Field("quantity", fmt.Sprintf("quantity %d: business plans require a minimum of two licenses", q))
	case q > domain.MaxQuantity:
		return nil, errs.Field("quantity", fmt.Sprintf("quantity %d is above %d: please contact sales", q, domain.MaxQuantity))
	}
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	cur, err := cat.Currency(req.GetCurrency())
	if err != nil {
		return nil, err
	}
	resp := &catalogv1.GetScheduledPricesResponse{Version: cat.Version(), Currency: cur.Code}
	for _, e := range cat.ScheduledPlans() {
		p, tier, err := cat.ScheduledPrice(e, q, cur)
		if err != nil {
			continue // not sold in this currency
		}
		resp.InvoiceItems = append(resp.InvoiceItems, &catalogv1.ScheduledPriceItem{
			AddOnCode: e.AddOnCode, Description: e.Title, PlanType: e.PlanType, Quantity: int32(q),
			UnitAmountInCents: int32(p.AmountInCents), AmountInCents: int32(p.AmountInCents) * int32(q), TierMinQuantity: int32(tier),
		})
	}
	return resp, nil
}

func (s *GRPC) GetFleetPrices(context.Context, *catalogv1.GetFleetPricesRequest) (*catalogv1.GetFleetPricesResponse, error) {
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	resp := &catalogv1.GetFleetPricesResponse{Version: cat.Version()}
	for _, e := range cat.ScheduledPlans() {
		resp.Plans = append(resp.Plans, &catalogv1.FleetPlan{
			AddOnCode: e.AddOnCode, Title: e.Title, MinQuantity: domain.BusinessMinQuantity, MaxQuantity: domain.MaxQuantity,
			Tiers: pbTiers(e.ScheduledPrices, ""),
		})
	}
	return resp, nil
}

func (s *GRPC) GetAvionicsAddOn(_ context.Context, req *catalogv1.GetAvionicsAddOnRequest) (*catalogv1.GetAvionicsAddOnResponse, error) {
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	rows, err := cat.Avionics(req.GetManufacturer(), req.GetModel())
	if err != nil {
		return nil, err
	}
	resp := &catalogv1.GetAvionicsAddOnResponse{Version: cat.Version(), Manufacturer: rows[0].Manufacturer, Model: rows[0].Model, Title: rows[0].Title}
	for _, row := range rows {
		entries, err := cat.Entries(row.AddOnCodes)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			resp.AddOns = append(resp.AddOns, &catalogv1.AvionicsAddOn{Category: row.Category, Entry: pbEntry(e, "")})
		}
	}
	return resp, nil
}

func (s *GRPC) GetEntries(_ context.Context, req *catalogv1.GetEntriesRequest) (*catalogv1.GetEntriesResponse, error) {
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	entries, err := cat.Entries(req.GetAddOnCodes())
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return nil, &errs.Error{Code: errs.NotFound, Message: e.Message, Fields: e.Fields}
		}
		return nil, err
	}
	resp := &catalogv1.GetEntriesResponse{Version: cat.Version()}
	for _, e := range entries {
		resp.Entries = append(resp.Entries, pbEntry(e, ""))
	}
	return resp, nil
}

func (s *GRPC) GetCatalog(_ context.Context, req *catalogv1.GetCatalogRequest) (*catalogv1.GetCatalogResponse, error) {
	cat, err := s.cats.Current()
	if err != nil {
		return nil, err
	}
	if req.GetIfVersionNot() == cat.Version() {
		return &catalogv1.GetCatalogResponse{Version: cat.Version(), NotModified: true}, nil
	}
	doc := cat.Document()
	resp := &catalogv1.GetCatalogResponse{
		Version:             cat.Version(),
		Currencies:          pbCurrencies(doc.Currencies),
		EuropeanCountries:   doc.EuropeanCountries,
		BusinessIdCountries: doc.BusinessIDCountries,
	}
	for i := range doc.Entries {
		resp.Entries = append(resp.Entries, pbEntry(&doc.Entries[i], ""))
	}
	for _, a := range doc.Aircraft {
		resp.Aircraft = append(resp.Aircraft, &catalogv1.Aircraft{Code: a.Code, Manufacturer: a.Manufacturer, Model: a.Model, Family: a.Family, Kind: a.Kind, AddOnCode: a.AddOnCode, AudPriced: a.AUDPriced})
	}
	for _, c := range doc.Countries {
		resp.Countries = append(resp.Countries, &catalogv1.Country{Code: c.Code, Name: c.Name})
	}
	return resp, nil
}
