package app

import (
	"context"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

// Development accounts (services/checkout/README.md lists them). Account N has id
// 00000000-0000-4000-8000-00000000000N and subscription 10000000-0000-4000-8000-00000000000N.
const (
	SeedPilot    = "00000000-0000-4000-8000-000000000001"
	SeedBusiness = "00000000-0000-4000-8000-000000000002"
	SeedMilitary = "00000000-0000-4000-8000-000000000003"
	SeedBundle   = "00000000-0000-4000-8000-000000000004"
	SeedChild    = "00000000-0000-4000-8000-000000000005"
	SeedLegacy   = "00000000-0000-4000-8000-000000000006"
	SeedAgency   = "00000000-0000-4000-8000-000000000007"
	// SeedGroup is identity's group parent of the child (group@demo.hangar.test); it has no
	// subscription here.
	SeedGroup = "00000000-0000-4000-8000-000000000008"
)

// E-mails of the seeded subscribers that are also identity's demo accounts (identity's
// dev seed): logging in as one of them prices against its subscription here, linked by the
// session's e-mail since identity gives its accounts their own ids.
const (
	SeedPilotEmail    = "pilot@demo.hangar.test"
	SeedBusinessEmail = "owner@acme.hangar.test"
	SeedMilitaryEmail = "pilot@army.mil"
	SeedChildEmail    = "child@demo.hangar.test"
)

// SeedSubscriptionID answers the subscription id of a seeded account.
func SeedSubscriptionID(account string) string { return "1" + account[1:] }

// SeedBusinessAddOns are the seeded business subscription's add-ons: 5 licences of Business
// Pro allocated to users, with Logbook for each (a per-licence add-on: a USER_ALLOCATION pool
// of 5 that, once assigned to a user, is locked in the store), EFB Bridge for the whole
// organization (no pool) and one Pilatus runway analysis (a TAIL_ALLOCATION pool of 1).
// Their pools at the allocation service are what a real order of them files: the seed's
// subscription-changed event is built with the catalogue like an order's (PutSubscription),
// and allocation's own dev seed repeats it (checkout's tests compare them).
var SeedBusinessAddOns = []string{"business_pro", "included_geo_us", "logbook", "efb_bridge", "runway_tp_pilatus"}

// SeedStore is what the development seed writes (adapters.Store): subscriptions (with their
// subscription-changed events), an account balance, promotions, a redemption and gift
// certificates, each as the store keeps them.
type SeedStore interface {
	PutSubscription(ctx context.Context, sub *domain.Subscription, cat *domain.Catalog) error
	SetBalance(ctx context.Context, accountID, currency string, cents int64) error
	PutPromotion(ctx context.Context, p *promotion.Promotion) error
	Redeem(ctx context.Context, code, accountID string) error
	PutGift(ctx context.Context, g *promotion.GiftCertificate) error
}

// SeedDemo writes the development data: one subscription per path of the store, promotions
// and gift certificates. It is idempotent: every run resets the rows to the same shape
// relative to now (e.g. the pilot always has 143 unused days), so dev and browser tests can
// rely on it. cat is the catalogue the subscription-changed events are built with (as an
// order's are).
func SeedDemo(ctx context.Context, s SeedStore, now time.Time, cat *domain.Catalog) error {
	day := func(n int) time.Time { return now.UTC().Truncate(24*time.Hour).AddDate(0, 0, n) }
	sub := func(account, email, name, plan string, addOns []string, qty int, price int64) *domain.Subscription {
		return &domain.Subscription{ID: SeedSubscriptionID(account), AccountID: account, Email: email, Name: name, PlanCode: plan,
			AddOns: addOns, Quantity: qty, Currency: "USD", PriceInCents: price, TermStart: day(-222), TermEnd: day(143),
			PaymentSource: "CREDIT_CARD", PaymentMethod: "CREDIT_CARD", BillingMethod: "TERM", Valid: true, BillingCountry: "US", BillingZip: "94105"}
	}
	mil := sub(SeedMilitary, SeedMilitaryEmail, "Military Flight Bag Pro", "mfb_pro", []string{"mfb_pro"}, 1, 20000)
	mil.Military = true
	child := sub(SeedChild, SeedChildEmail, "Essential", "pro_plus", []string{"pro_plus", "included_geo_us"}, 1, 19999)
	// Identity makes the child a member of group@demo's group, not of an organization: its
	// parent is the group's account and its licence is its own (no organization id, which
	// would file it in Acme's pools).
	child.ParentAccountID = SeedGroup
	agency := sub(SeedAgency, "agency@example.com", "Military Flight Bag One", "mfb_one", []string{"mfb_one", "included_geo_us"}, 1, 0)
	agency.Military, agency.PaymentSource, agency.PaymentMethod = true, domain.PaymentThirdParty, "CHECK"
	biz := sub(SeedBusiness, SeedBusinessEmail, "Business Pro", "business_pro", SeedBusinessAddOns, 5, 5*25000+5*5000+30000+16000)
	// The organization's account is identity's Acme owner: the owner of the licence pools.
	// Which licences are assigned to whom (the Pilatus runway analysis to N412AC) is the
	// allocation service's (its dev seed); checkout asks it.
	biz.OrganizationID, biz.LicensingMethod = SeedBusiness, domain.LicensingUserAllocation
	subs := []*domain.Subscription{
		sub(SeedPilot, SeedPilotEmail, "Premium", "performance", []string{"performance", "included_geo_us", "add_geo_eu"}, 1, 47000),
		biz, mil,
		sub(SeedBundle, "hondajet@example.com", "HondaJet Owners Bundle", "honda_jet_bundle", []string{"honda_jet_bundle", "included_geo_us", "honda_jet_bundle_elite"}, 2, 317560),
		child,
		sub(SeedLegacy, "legacy@example.com", "Pro (US)", "pro_us", []string{"pro_us"}, 1, 14999),
		agency,
	}
	for _, x := range subs {
		if err := s.PutSubscription(ctx, x, cat); err != nil {
			return err
		}
	}
	if err := s.SetBalance(ctx, SeedPilot, "USD", 2500); err != nil {
		return err
	}
	for _, p := range DevPromotions() {
		if err := s.PutPromotion(ctx, p); err != nil {
			return err
		}
	}
	if err := s.Redeem(ctx, "WELCOME5", SeedPilot); err != nil {
		return err
	}
	for _, g := range []*promotion.GiftCertificate{
		{Code: "GIFT-USD-100", Currency: "USD", BalanceInCents: 10000},
		{Code: "GIFT-EUR-50", Currency: "EUR", BalanceInCents: 5000},
		{Code: "GIFT-USD-SPENT", Currency: "USD", BalanceInCents: 0}, // used up
	} {
		if err := s.PutGift(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// DevPromotions are the development promotions (README lists them).
func DevPromotions() []*promotion.Promotion {
	return []*promotion.Promotion{
		{Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true, AppliesUpgrade: true},
		{Code: "SAVE25", Kind: "fixed", AmountInCents: 2500, Currency: "USD", AppliesNew: true, AppliesRenewal: true, AppliesUpgrade: true, MinAmountInCents: 30000, BusinessAllowed: true},
		{Code: "WELCOME5", Kind: "percent", PercentBP: 500, AppliesNew: true, AppliesRenewal: true, AppliesUpgrade: true},
		{Code: "EAA2020", Kind: "percent", PercentBP: 2000, AppliesNew: true, FirstTimeOnly: true,
			Notice: "EAA2020", NoticeMessage: "EAA members save 20% on their first year. The discount applies to first-time customers only.", NoticeAudience: "first_time"},
		{Code: "BUNDLE2020", Kind: "percent", PercentBP: 1500, AppliesNew: true, AppliesRenewal: true, AppliesUpgrade: true,
			Notice: "BUNDLE2020", NoticeMessage: "This promotion is not valid for customers who already have chart coverage.",
			NoticeAudience: "has_chart_coverage", AlwaysView: true, RemoveOnNotice: true},
	}
}
