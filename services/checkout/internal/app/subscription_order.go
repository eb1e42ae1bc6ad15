package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/order"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// SubscriptionDetail is what a subscription order writes: the subscription after the
// purchase (order.Purchase.Detail of subscription orders).
type SubscriptionDetail struct {
	SubscriptionID string    `json:"subscriptionId"`
	Existing       bool      `json:"existing"`
	Change         string    `json:"change"` // new, renewal, change
	Name           string    `json:"name"`
	PlanCode       string    `json:"planCode"`
	AddOns         []string  `json:"addOns"`
	Quantity       int       `json:"quantity"`
	PriceInCents   int64     `json:"priceInCents"`
	TermStart      time.Time `json:"termStart"`
	TermEnd        time.Time `json:"termEnd"`
	Military       bool      `json:"military,omitempty"`
	ParentAccount  string    `json:"parentAccountId,omitempty"`
	Licensing      string    `json:"licensingMethod,omitempty"`
	// ExpireAllocations are the tail allocations the buyer acknowledged as ending (a record
	// of the order: the allocation service expires them when the subscription-changed event
	// without their add-ons arrives).
	ExpireAllocations []string `json:"expireAllocations,omitempty"`
	// MarketingConsentOf is the buyer's account when they ticked the marketing checkbox:
	// the person buying, not the subscription's (an organization's) account.
	MarketingConsentOf string `json:"marketingConsentOf,omitempty"`
}

// subscriptionPurchase turns a validated, quoted preview into the order to place.
func (s *Service) subscriptionPurchase(pv *pricing.Preview, accountID string, in domain.Input) (*order.Purchase, error) {
	c, inv := pv.Cart, &pv.Invoice
	d := SubscriptionDetail{SubscriptionID: uuid.NewString(), Change: pv.Change, AddOns: c.AddOns, Quantity: c.Quantity,
		PriceInCents: inv.ChargesInCents - inv.DiscountInCents, TermStart: pv.TermStart, TermEnd: pv.RenewalDate, Military: c.Military}
	if in.MarketingConsent && !c.Managed {
		// A group parent buying for a child gives no consent for the child.
		d.MarketingConsentOf = accountID
	}
	if c.Plan != nil {
		d.PlanCode, d.Name = c.Plan.Code, c.Plan.Title
	}
	buyer := "individual"
	switch {
	case c.Bundle:
		buyer = "bundle"
	case c.Military:
		buyer = "military"
	case c.Business:
		buyer = "business"
	}
	org := ""
	if ex := c.Existing; ex != nil {
		d.SubscriptionID, d.Existing, d.ParentAccount, d.Licensing, org = ex.ID, true, ex.ParentAccountID, ex.LicensingMethod, ex.OrganizationID
		if ex.AccountID != "" {
			accountID = ex.AccountID
		}
		for _, a := range c.ExpiringAllocations {
			d.ExpireAllocations = append(d.ExpireAllocations, a.TargetType+"|"+a.TargetID)
		}
	}
	// A business buyer's licences belong to the identity organization they act for: its
	// account is what the allocation service files pools under and what its admins' sessions
	// carry (checkout's own seeded organization ids are not identity's).
	if o := in.Caller.Organization; o != "" && (c.Business || org != "") {
		org = o
	}
	detail, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode subscription order: %w", err)
	}
	pu := &order.Purchase{Kind: order.KindSubscription, AccountID: accountID, OrganizationID: org, Email: c.Email, BuyerKind: buyer,
		Currency: inv.Currency, SubtotalInCents: inv.SubtotalInCents, TaxInCents: inv.TaxInCents, TotalInCents: inv.TotalInCents,
		CreditToAccountInCents: inv.CreditToAccountInCents, AccountBalanceInCents: inv.AccountBalanceInCents, TaxLabel: inv.Tax.Label,
		TaxJurisdiction: inv.Tax.Jurisdiction, ReverseCharge: inv.Tax.ReverseCharge, PaymentMethod: firstNonEmpty(c.PaymentMethod, "CREDIT_CARD"),
		BillingName: in.CardholderName, BillingCountry: c.Country, BillingZip: c.Zip, BusinessID: c.BusinessID,
		IsEU: in.EuCustomer || c.EuConsentRequired, Detail: detail}
	if ex := c.Existing; ex != nil && ex.ThirdParty() {
		pu.ThirdParty = true
	}
	for _, l := range inv.Lines {
		pu.Lines = append(pu.Lines, order.Line{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType, Description: l.Description,
			Reason: l.Reason, UnitAmountInCents: l.UnitAmountInCents, Quantity: l.Quantity, AmountInCents: l.AmountInCents, Key: l.Key,
			BundleAddOnCode: l.BundleAddOnCode, BundleItemType: l.BundleItemType, PostTax: l.PostTax})
		switch {
		case l.Type == pricing.ItemGiftDiscount:
			pu.Gifts = append(pu.Gifts, order.GiftDebit{Code: strings.TrimPrefix(l.Key, pricing.ItemGiftDiscount+":"), AmountInCents: -l.AmountInCents})
		case l.Type == pricing.ItemPlanDiscount && strings.HasPrefix(l.Key, pricing.ItemPlanDiscount+":"):
			pu.PromoCodes = append(pu.PromoCodes, strings.TrimPrefix(l.Key, pricing.ItemPlanDiscount+":"))
		}
	}
	return pu, nil
}

// SubscriptionFulfiller writes the subscription of a subscription order and answers its
// subscription-changed event (the whole state after the change, versioned).
type SubscriptionFulfiller struct {
	Catalog func() (*domain.Catalog, error)
}

// Fulfil implements order.Fulfiller.
func (f SubscriptionFulfiller) Fulfil(ctx context.Context, tx pgx.Tx, o *order.Placed) ([]kafka.Event, error) {
	d, args, err := upsertOf(o)
	if err != nil {
		return nil, err
	}
	var version int64
	if err := tx.QueryRow(ctx, upsertSubscription, args...).Scan(&version); err != nil {
		return nil, fmt.Errorf("write subscription: %w", err)
	}
	return f.events(d, o, version)
}

// events answers an order's subscription-changed event and, when the buyer ticked the
// marketing checkbox, its marketing-consent-given.
func (f SubscriptionFulfiller) events(d SubscriptionDetail, o *order.Placed, version int64) ([]kafka.Event, error) {
	ev, err := f.changed(d, o, version)
	if err != nil {
		return nil, err
	}
	evs := []kafka.Event{ev}
	if d.MarketingConsentOf != "" {
		mc, err := marketingConsentGiven(d.MarketingConsentOf, o)
		if err != nil {
			return nil, err
		}
		evs = append(evs, mc)
	}
	return evs, nil
}

// FulfilBatch implements order.BatchFulfiller: the subscriptions of a batch of orders (the
// renewal pass's) written in one round trip, each exactly as Fulfil writes it.
func (f SubscriptionFulfiller) FulfilBatch(ctx context.Context, tx pgx.Tx, os []*order.Placed) ([][]kafka.Event, error) {
	details := make([]SubscriptionDetail, len(os))
	versions := make([]int64, len(os))
	b := &pgx.Batch{}
	for n, o := range os {
		d, args, err := upsertOf(o)
		if err != nil {
			return nil, err
		}
		details[n] = d
		b.Queue(upsertSubscription, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&versions[n]) })
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("write subscriptions: %w", err)
	}
	out := make([][]kafka.Event, len(os))
	for n, o := range os {
		evs, err := f.events(details[n], o, versions[n])
		if err != nil {
			return nil, err
		}
		out[n] = evs
	}
	return out, nil
}

// upsertSubscription writes the subscription of an order (new, changed or renewed).
const upsertSubscription = `INSERT INTO subscriptions (id, account_id, email, name, plan_code, add_ons, quantity, currency, price_in_cents,
		term_start, term_end, payment_source, payment_method, military, valid, business_id, billing_country, billing_zip, billing_name,
		organization_id, parent_account_id, licensing_method, is_eu, last_invoice_id, payment_method_token, card_expires_at, version, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,'CREDIT_CARD',$12,$13,true,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,1,now())
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, plan_code = EXCLUDED.plan_code, add_ons = EXCLUDED.add_ons,
		quantity = EXCLUDED.quantity, currency = EXCLUDED.currency, price_in_cents = EXCLUDED.price_in_cents,
		term_start = EXCLUDED.term_start, term_end = EXCLUDED.term_end, payment_method = EXCLUDED.payment_method,
		military = EXCLUDED.military, valid = true, business_id = EXCLUDED.business_id, billing_country = EXCLUDED.billing_country,
		billing_zip = EXCLUDED.billing_zip, billing_name = EXCLUDED.billing_name, is_eu = subscriptions.is_eu OR EXCLUDED.is_eu,
		last_invoice_id = EXCLUDED.last_invoice_id,
		payment_method_token = coalesce(nullif(EXCLUDED.payment_method_token, ''), subscriptions.payment_method_token),
		card_expires_at = coalesce(EXCLUDED.card_expires_at, CASE WHEN EXCLUDED.payment_method_token IN ('', subscriptions.payment_method_token)
			THEN subscriptions.card_expires_at END),
		lapsed_at = NULL,
		-- A term stacked after the current one (an early renewal) keeps the current term's
		-- unused days paid for; a change restarts the term today (its credit given).
		earlier_terms = CASE WHEN EXCLUDED.term_start > now() THEN
			(SELECT coalesce(jsonb_agg(t), '[]') FROM jsonb_array_elements(subscriptions.earlier_terms ||
				jsonb_build_array(jsonb_build_object('start', subscriptions.term_start, 'end', subscriptions.term_end,
					'priceInCents', subscriptions.price_in_cents))) t
			WHERE (t->>'end')::timestamptz > now()) ELSE '[]' END,
		version = subscriptions.version + 1, updated_at = now()
		RETURNING version`

// upsertOf answers an order's subscription detail and the arguments of upsertSubscription.
func upsertOf(o *order.Placed) (SubscriptionDetail, []any, error) {
	var d SubscriptionDetail
	if err := json.Unmarshal(o.Detail, &d); err != nil {
		return d, nil, fmt.Errorf("decode subscription order: %w", err)
	}
	return d, []any{d.SubscriptionID, o.AccountID, o.Email, d.Name, d.PlanCode, d.AddOns, d.Quantity, o.Currency, d.PriceInCents, d.TermStart,
		d.TermEnd, firstNonEmpty(o.PaymentMethod, "CREDIT_CARD"), d.Military, o.BusinessID, o.BillingCountry, o.BillingZip,
		o.BillingName, nullable(o.OrganizationID), nullable(d.ParentAccount), d.Licensing, o.IsEU, o.InvoiceID,
		o.PaymentMethodToken, CardExpiry(o.CardExpires)}, nil
}

// changed is the subscription-changed event of an order's subscription at version.
func (f SubscriptionFulfiller) changed(d SubscriptionDetail, o *order.Placed, version int64) (kafka.Event, error) {
	ev := &eventsv1.SubscriptionChanged{SubscriptionId: d.SubscriptionID, AccountId: o.AccountID, OrganizationId: o.OrganizationID,
		PlanCode: d.PlanCode, Quantity: int32(d.Quantity), TermStart: timestamppb.New(d.TermStart), TermEnd: timestamppb.New(d.TermEnd),
		Status: "active", AutoRenew: true, Change: d.Change, OrderId: o.InvoiceID, Version: version, ChangedAt: timestamppb.New(o.CreatedAt)}
	ev.AddOns = addOnsOf(d.AddOns, d.Quantity, d.Licensing, f.Catalog)
	b, err := proto.Marshal(ev)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode subscription changed: %w", err)
	}
	return kafka.Event{Topic: events.TopicSubscriptionChanged, Key: o.AccountID, Payload: b}, nil
}

// addOnsOf lists a subscription's add-ons with their licensing method (subscription.AddOns).
func addOnsOf(codes []string, qty int, licensing string, cat func() (*domain.Catalog, error)) []*eventsv1.SubscriptionAddOn {
	var c *domain.Catalog
	if cat != nil {
		c, _ = cat()
	}
	return subscription.AddOns(codes, qty, licensing, c)
}

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}
