package promotion_test

import (
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

var now = domaintest.Now

func price(t testing.TB, in domain.Input, existing *domain.Subscription, p pricing.Pricing) *pricing.Preview {
	t.Helper()
	return domaintest.Preview(t, in, existing, p)
}

func pilot() *domain.Subscription { return domaintest.Pilot() }

func TestPromotionsAndGifts(t *testing.T) {
	t.Parallel()
	promos := map[string]*promotion.Promotion{
		"spring10":   {Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true, AppliesUpgrade: true},
		"save25":     {Code: "SAVE25", Kind: "fixed", AmountInCents: 2500, Currency: "USD", AppliesNew: true, AppliesRenewal: true, MinAmountInCents: 30000, BusinessAllowed: true},
		"expired":    {Code: "EXPIRED", Kind: "percent", PercentBP: 1000, AppliesNew: true, ValidUntil: now.Add(-time.Hour)},
		"full":       {Code: "FULL", Kind: "percent", PercentBP: 1000, AppliesNew: true, MaxRedemptions: 5, Redemptions: 5},
		"eaa2020":    {Code: "EAA2020", Kind: "percent", PercentBP: 2000, AppliesNew: true, FirstTimeOnly: true, Notice: "EAA2020", NoticeMessage: "EAA members: 20% off your first year.", NoticeAudience: "first_time"},
		"bundle2020": {Code: "BUNDLE2020", Kind: "percent", PercentBP: 1500, AppliesNew: true, AppliesRenewal: true, Notice: "BUNDLE2020", NoticeMessage: "This promotion is not valid for customers who already have chart coverage.", NoticeAudience: "has_chart_coverage", AlwaysView: true, RemoveOnNotice: true},
		"premonly":   {Code: "PREMONLY", Kind: "percent", PercentBP: 1000, AppliesNew: true, EligiblePlans: []string{"performance"}},
	}
	gifts := map[string]*promotion.GiftCertificate{
		"gift-usd-100": {Code: "GIFT-USD-100", Currency: "USD", BalanceInCents: 10000},
		"gift-eur-50":  {Code: "GIFT-EUR-50", Currency: "EUR", BalanceInCents: 5000},
		"gift-big":     {Code: "GIFT-BIG", Currency: "USD", BalanceInCents: 100000},
	}
	premium := []string{"performance", "included_geo_us"}
	business := &domain.Subscription{ID: "b", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 5, Currency: "USD", Valid: true}
	for _, tc := range []struct {
		name     string
		in       domain.Input
		ex       *domain.Subscription
		acct     domain.Account
		discount int64
		gift     int64
		code     string // expected error code
		msg      string
		notice   string
		total    int64
	}{
		{name: "percent promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"spring10"}}, acct: domain.Account{FirstTime: true}, discount: 3700, total: 33300},
		{name: "fixed promotion above its minimum", in: domain.Input{AddOns: premium, PromoCodes: []string{"SAVE25"}}, discount: 2500, total: 34500},
		{name: "fixed promotion below its minimum", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, PromoCodes: []string{"SAVE25"}}, code: promotion.CodeNotValid, msg: "Not a valid code.", total: 19999},
		{name: "fixed promotion in another currency", in: domain.Input{Currency: "EUR", AddOns: []string{"performance", "included_geo_eu"}, PromoCodes: []string{"SAVE25"}}, code: promotion.CodeNotValid, total: 34400},
		{name: "unknown promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"NOPE"}}, code: promotion.CodeNotValid, msg: "Not a valid code.", total: 37000},
		{name: "expired promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"EXPIRED"}}, code: promotion.CodeNotValid, total: 37000},
		{name: "redemption limit reached", in: domain.Input{AddOns: premium, PromoCodes: []string{"FULL"}}, code: promotion.CodeNotValid, total: 37000},
		{name: "code already used by the account", in: domain.Input{AddOns: premium, PromoCodes: []string{"spring10"}}, acct: domain.Account{UsedCodes: []string{"Spring10"}}, code: promotion.CodeAlreadyUsed, msg: "Code already used.", total: 37000},
		{name: "code entered twice in another case", in: domain.Input{AddOns: premium, PromoCodes: []string{"SAVE25", "save25"}}, discount: 2500, code: promotion.CodeAlreadyUsed, msg: "Code already used.", total: 34500},
		{name: "placeholder code is ignored", in: domain.Input{AddOns: premium, PromoCodes: []string{"{code}", " "}}, total: 37000},
		{name: "renewal-only restriction for individuals", in: domain.Input{PromoCodes: []string{"spring10"}}, ex: pilot(), code: promotion.CodeRenewalIndividual, msg: "This promotion is not valid for a renewal, but will apply if you upgrade your plan.", total: 47000},
		{name: "not for business plans", in: domain.Input{PromoCodes: []string{"spring10"}}, ex: business, code: promotion.CodeRenewalBusiness, msg: "This promotion is not available for Business plans.", total: 125000},
		{name: "eligible plans only", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, PromoCodes: []string{"premonly"}}, code: promotion.CodeNotValid, total: 19999},
		{name: "EAA2020 notice for a first-time customer", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}}, acct: domain.Account{FirstTime: true}, discount: 7400, notice: "EAA2020", total: 29600},
		{name: "EAA2020 notice already viewed is not asked again", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}, ViewedPromos: []string{"eaa2020"}}, acct: domain.Account{FirstTime: true}, discount: 7400, total: 29600},
		{name: "BUNDLE2020 notice is always asked", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}, ViewedPromos: []string{"BUNDLE2020"}}, acct: domain.Account{HasChartCoverage: true}, code: promotion.CodePromoPop, notice: "BUNDLE2020", total: 37000},
		{name: "EAA2020 for a returning customer", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}}, code: promotion.CodeNotValid, total: 37000},
		{name: "BUNDLE2020 with chart coverage is removed with its notice", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}}, acct: domain.Account{HasChartCoverage: true}, code: promotion.CodePromoPop, notice: "BUNDLE2020", total: 37000},
		{name: "BUNDLE2020 without chart coverage applies", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}}, discount: 5550, total: 31450},
		{name: "gift certificate pays part", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-USD-100"}}, gift: 10000, total: 27000},
		{name: "gift certificate larger than the invoice", in: domain.Input{AddOns: premium, GiftCodes: []string{"gift-big"}}, gift: 37000, total: 0},
		{name: "gift certificate in another currency", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-EUR-50"}}, code: promotion.CodeGiftCurrency, msg: "The currency for that gift card does not match the currency you have selected.", total: 37000},
		{name: "gift certificate not found", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-NOPE"}}, code: promotion.CodeGiftNotFound, msg: "Could not find gift certificate.", total: 37000},
		{name: "account balance pays after tax", in: domain.Input{AddOns: premium}, acct: domain.Account{BalanceInCents: 5000, BalanceCurrency: "USD"}, total: 32000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := price(t, tc.in, tc.ex, pricing.Pricing{Promotions: promos, Gifts: gifts, Account: tc.acct})
			inv := pv.Invoice
			if inv.DiscountInCents != tc.discount || inv.GiftCreditInCents != tc.gift || inv.TotalInCents != tc.total {
				t.Errorf("discount %d gift %d total %d, want %d %d %d", inv.DiscountInCents, inv.GiftCreditInCents, inv.TotalInCents, tc.discount, tc.gift, tc.total)
			}
			if tc.code != "" {
				found := false
				for _, ce := range pv.CodeErrors {
					found = found || ce.ErrorCode == tc.code && (tc.msg == "" || ce.Message == tc.msg)
				}
				if !found {
					t.Errorf("code errors %+v lack %s %q", pv.CodeErrors, tc.code, tc.msg)
				}
			} else if len(pv.CodeErrors) > 0 {
				t.Errorf("code errors %+v", pv.CodeErrors)
			}
			if tc.notice == "" && len(pv.PromoInfo) > 0 {
				t.Errorf("promo info %+v", pv.PromoInfo)
			}
			if tc.notice != "" && (len(pv.PromoInfo) != 1 || pv.PromoInfo[0].Notice != tc.notice) {
				t.Errorf("promo info %+v", pv.PromoInfo)
			}
		})
	}
}
