package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hangar/hangar/internal/platform/cardexpiry"
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
	// Only a buyer who may manage the organization's billing buys for it (a plain member's
	// business purchase is refused at validation: MsgOrgOwnerBuys).
	if o := in.Caller.Organization; o != "" && in.Caller.OrganizationBilling && (c.Business || org != "") {
		org = o
	}
	detail, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode subscription order: %w", err)
	}
	pu := &order.Purchase{Kind: order.KindSubscription, AccountID: accountID, OrganizationID: org, Email: c.Email, BuyerKind: buyer,
		Currency: inv.Currency, SubtotalInCents: inv.SubtotalInCents, TaxInCents: inv.TaxInCents, TotalInCents: inv.TotalInCents,
		CreditToAccountInCents: inv.CreditToAccountInCents, AccountBalanceInCents: inv.AccountBalanceInCents, TaxLabel: inv.Tax.Label,
		TaxJurisdiction: inv.Tax.Jurisdiction, ReverseCharge: inv.Tax.ReverseCharge, TaxRatePPM: inv.Tax.ChargedPPM(), PaymentMethod: firstNonEmpty(c.PaymentMethod, "CREDIT_CARD"),
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
			pu.Gifts = append(pu.Gifts, order.GiftDebit{Ref: strings.TrimPrefix(l.Key, pricing.ItemGiftDiscount+":"), AmountInCents: -l.AmountInCents})
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
func (f SubscriptionFulfiller) Fulfil(ctx context.Context, tx order.Tx, o *order.Placed) ([]kafka.Event, error) {
	evs, err := f.FulfilBatch(ctx, tx, []*order.Placed{o})
	if err != nil {
		return nil, err
	}
	return evs[0], nil
}

// FulfilBatch implements order.BatchFulfiller: the subscriptions of a batch of orders (the
// renewal pass's) written in one round trip, each exactly as Fulfil writes it.
func (f SubscriptionFulfiller) FulfilBatch(ctx context.Context, tx order.Tx, os []*order.Placed) ([][]kafka.Event, error) {
	details := make([]SubscriptionDetail, len(os))
	writes := make([]*order.SubscriptionWrite, len(os))
	for n, o := range os {
		d, w, err := subscriptionWriteOf(o)
		if err != nil {
			return nil, err
		}
		details[n], writes[n] = d, w
	}
	if err := tx.WriteSubscriptions(ctx, writes); err != nil {
		return nil, err
	}
	cat := catalogOrNil(f.Catalog)
	out := make([][]kafka.Event, len(os))
	for n, o := range os {
		evs, err := subscriptionEvents(details[n], &writes[n].Subscription, o, cat)
		if err != nil {
			return nil, err
		}
		out[n] = evs
	}
	return out, nil
}

// subscriptionEvents answers an order's subscription-changed event (the subscription as written: its
// version and auto-renew are the row's) and, when the buyer ticked the marketing
// checkbox, its marketing-consent-given.
func subscriptionEvents(d SubscriptionDetail, sub *domain.Subscription, o *order.Placed, cat *domain.Catalog) ([]kafka.Event, error) {
	ev, err := subscription.Changed{Sub: sub, Change: d.Change, OrderID: o.InvoiceID, At: o.CreatedAt, Catalog: cat}.Event()
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

// subscriptionWriteOf answers an order's subscription detail and the subscription it writes.
func subscriptionWriteOf(o *order.Placed) (SubscriptionDetail, *order.SubscriptionWrite, error) {
	var d SubscriptionDetail
	if err := json.Unmarshal(o.Detail, &d); err != nil {
		return d, nil, fmt.Errorf("decode subscription order: %w", err)
	}
	return d, &order.SubscriptionWrite{Subscription: domain.Subscription{ID: d.SubscriptionID, AccountID: o.AccountID, Email: o.Email,
		Name: d.Name, PlanCode: d.PlanCode, AddOns: d.AddOns, Quantity: d.Quantity, Currency: o.Currency, PriceInCents: d.PriceInCents,
		TermStart: d.TermStart, TermEnd: d.TermEnd, PaymentSource: "CREDIT_CARD", PaymentMethod: o.PaymentMethodOrCard(),
		Military: d.Military, Valid: true, BusinessID: o.BusinessID, BillingCountry: o.BillingCountry, BillingZip: o.BillingZip,
		BillingName: o.BillingName, OrganizationID: o.OrganizationID, ParentAccountID: d.ParentAccount, LicensingMethod: d.Licensing},
		IsEU: o.IsEU, InvoiceID: o.InvoiceID, PaymentMethodToken: o.PaymentMethodToken, CardExpiresAt: cardexpiry.End(o.CardExpires)}, nil
}

// catalogOrNil answers the catalogue cat gives, or nil (subscription.AddOns then decides
// by the codes' names).
func catalogOrNil(cat func() (*domain.Catalog, error)) *domain.Catalog {
	if cat == nil {
		return nil
	}
	c, _ := cat()
	return c
}
