package domain

import (
	"strings"
	"time"
)

// Error codes of spec 000 §8 for promo and gift codes.
const (
	CodeNotValid            = "MISSING_MINIUMUM_DISCOUNT_DATA" // spelt as the page expects
	CodeGiftCurrency        = "GIFTCARD_CURRENCY_MISMATCH"
	CodeGiftNotFound        = "GIFT_CERTIFICATE_NOT_FOUND"
	CodeRenewalIndividual   = "SUBSCRIPTION_UPGRADE_OR_NEW_INDIVIDUAL"
	CodeRenewalBusiness     = "SUBSCRIPTION_UPGRADE_OR_NEW_BUSINESS"
	CodePromoPop            = "PROMO_POP"
	CodeAlreadyUsed         = "CODE_ALREADY_USED"
	CodeCurrencyNotAllowed  = "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT"
	CodeChildAccount        = "CHILD_ACCOUNT_PURCHASE"
	MsgNotValid             = "Not a valid code."
	MsgGiftCurrency         = "The currency for that gift card does not match the currency you have selected."
	MsgGiftNotFound         = "Could not find gift certificate."
	MsgRenewalIndividual    = "This promotion is not valid for a renewal, but will apply if you upgrade your plan."
	MsgRenewalBusiness      = "This promotion is not available for Business plans."
	promoAudienceFirstTime  = "first_time"
	promoAudienceHasCharts  = "has_chart_coverage"
	promoKindPercent        = "percent"
	promoKindFixed          = "fixed"
	promoRateDenominatorBPS = 10_000
)

// Promotion is a data-driven promo code. Zero values mean "no restriction".
type Promotion struct {
	Code string
	// Kind is "percent" (PercentBP basis points of the charges) or "fixed" (AmountInCents
	// in Currency, at most the charges).
	Kind          string
	PercentBP     int64
	AmountInCents int64
	Currency      string
	// EligiblePlans limits the plans the code applies to.
	EligiblePlans []string
	// FirstTimeOnly limits the code to customers without a subscription.
	FirstTimeOnly bool
	// Applicability: a new purchase, a renewal without plan change, an upgrade.
	AppliesNew, AppliesRenewal, AppliesUpgrade bool
	BusinessAllowed                            bool
	MinAmountInCents                           int64
	ValidFrom, ValidUntil                      time.Time
	MaxRedemptions, Redemptions                int
	// Notice is a notice shown for the code (EAA2020, BUNDLE2020), to the audience
	// NoticeAudience ("first_time" or "has_chart_coverage"); AlwaysView shows it even when
	// already viewed; RemoveOnNotice removes the code when the notice applies.
	Notice         string
	NoticeMessage  string
	NoticeAudience string
	AlwaysView     bool
	RemoveOnNotice bool
}

// GiftCertificate is a prepaid balance in one currency.
type GiftCertificate struct {
	Code           string
	Currency       string
	BalanceInCents int64
}

// Account is what pricing needs to know about the buyer's account.
type Account struct {
	FirstTime        bool
	UsedCodes        []string // promo codes already redeemed (any case)
	BalanceInCents   int64
	BalanceCurrency  string
	HasChartCoverage bool
}

func (a Account) used(code string) bool {
	for _, c := range a.UsedCodes {
		if strings.EqualFold(c, code) {
			return true
		}
	}
	return false
}

// PromoInfo asks the page to show a promotion's notice (promoInfoRequirements).
type PromoInfo struct {
	Code, Notice, Message  string
	AlwaysView, RemoveCode bool
}

// CodeError is a refused promo or gift code.
type CodeError struct {
	Code, ErrorCode, Message string
}

// purchase says what kind of purchase a promotion is checked against.
type purchase struct {
	business, renewal, upgrade bool
	plan                       string
	currency                   string
	charges                    int64
	now                        time.Time
}

// evaluate answers the discount a promotion gives, or why it does not apply.
func (p *Promotion) evaluate(acct Account, pu purchase) (int64, *CodeError) {
	bad := func(code, msg string) (int64, *CodeError) {
		return 0, &CodeError{Code: p.Code, ErrorCode: code, Message: msg}
	}
	switch {
	case !p.ValidFrom.IsZero() && pu.now.Before(p.ValidFrom),
		!p.ValidUntil.IsZero() && !pu.now.Before(p.ValidUntil),
		p.MaxRedemptions > 0 && p.Redemptions >= p.MaxRedemptions,
		p.Kind == promoKindFixed && !strings.EqualFold(p.Currency, pu.currency),
		p.FirstTimeOnly && !acct.FirstTime:
		return bad(CodeNotValid, MsgNotValid)
	case acct.used(p.Code):
		return bad(CodeAlreadyUsed, MsgCodeUsed)
	case pu.business && !p.BusinessAllowed:
		return bad(CodeRenewalBusiness, MsgRenewalBusiness)
	case pu.renewal && !pu.upgrade && !p.AppliesRenewal:
		return bad(CodeRenewalIndividual, MsgRenewalIndividual)
	case pu.upgrade && !p.AppliesUpgrade, !pu.renewal && !p.AppliesNew:
		return bad(CodeNotValid, MsgNotValid)
	case len(p.EligiblePlans) > 0 && !containsFold(p.EligiblePlans, pu.plan):
		return bad(CodeNotValid, MsgNotValid)
	case pu.charges < p.MinAmountInCents:
		return bad(CodeNotValid, MsgNotValid)
	}
	var d int64
	switch p.Kind {
	case promoKindPercent:
		d = roundHalfUp(pu.charges*p.PercentBP, promoRateDenominatorBPS)
	case promoKindFixed:
		d = p.AmountInCents
	}
	return min(max(d, 0), pu.charges), nil
}

// notice answers the promotion's notice for this account, if it applies.
func (p *Promotion) notice(acct Account) *PromoInfo {
	if p.Notice == "" {
		return nil
	}
	switch p.NoticeAudience {
	case promoAudienceFirstTime:
		if !acct.FirstTime {
			return nil
		}
	case promoAudienceHasCharts:
		if !acct.HasChartCoverage {
			return nil
		}
	}
	return &PromoInfo{Code: p.Code, Notice: p.Notice, Message: p.NoticeMessage, AlwaysView: p.AlwaysView, RemoveCode: p.RemoveOnNotice}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
