// Package promotion evaluates promo codes (data-driven promotions with their notices) and
// holds the gift certificates that pay an invoice, with the codes and messages of spec 000
// §8 for refused codes.
package promotion

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
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
	MsgNotValid             = "Not a valid code."
	MsgCodeUsed             = "Code already used."
	MsgGiftCurrency         = "The currency for that gift card does not match the currency you have selected."
	MsgGiftNotFound         = "Could not find gift certificate."
	MsgRenewalIndividual    = "This promotion is not valid for a renewal, but will apply if you upgrade your plan."
	MsgRenewalBusiness      = "This promotion is not available for Business plans."
	promoAudienceFirstTime  = "first_time"
	promoAudienceHasCharts  = "has_chart_coverage"
	promoRateDenominatorBPS = 10_000
)

// Codes and messages the spec does not have: a gift certificate used up, and a promotion
// beyond the order's limit (Stacking).
const (
	CodeGiftSpent = "GIFT_CERTIFICATE_SPENT"
	// CodeBalanceHeld: the account balance an order was priced with is spent or held by
	// another pending order of the account.
	CodeBalanceHeld   = "ACCOUNT_BALANCE_CHANGED"
	CodeNotStackable  = "PROMOTIONS_DO_NOT_STACK"
	MsgGiftSpent      = "This gift certificate has been used up: it has no balance left."
	MsgOnePromotion   = "Only one promotion can be applied to an order."
	msgSomePromotions = "At most %d promotions can be applied to an order."
)

// Promotion kinds.
const (
	KindPercent = "percent"
	KindFixed   = "fixed"
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

// GiftCodeHash is how a gift certificate's code is stored and looked up: the SHA-256 of the
// code as typed, trimmed and upper-cased. A code is 75 random bits, so the hash does not
// give it back; the code itself is only in the e-mails that carry it (issue 41: codes sat
// in plain text in gift_certificates and the ledger).
func GiftCodeHash(code string) []byte {
	h := sha256.Sum256([]byte(strings.ToUpper(strings.TrimSpace(code))))
	return h[:]
}

// GiftRef is GiftCodeHash in hex: how an order names the certificates it pays from (its
// invoice line's key, the debit it keeps for the reconciler).
func GiftRef(code string) string { return hex.EncodeToString(GiftCodeHash(code)) }

// MaskGiftCode shows only the last four characters of a code, for invoice lines and
// receipts.
func MaskGiftCode(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if len(code) < 4 {
		return "••••"
	}
	return "••••-••••-••••-" + code[len(code)-4:]
}

// GiftCertificate is a prepaid balance in one currency.
type GiftCertificate struct {
	Code           string
	Currency       string
	BalanceInCents int64
}

// Info asks the page to show a promotion's notice (promoInfoRequirements).
type Info struct {
	Code, Notice, Message  string
	AlwaysView, RemoveCode bool
}

// CodeError is a refused promo or gift code.
type CodeError struct {
	Code, ErrorCode, Message string
}

// Purchase says what kind of purchase a promotion is checked against.
type Purchase struct {
	Business, Renewal, Upgrade bool
	// Plan is the plan bought; empty for a purchase without one (a one-off purchase), which
	// a code limited to plans does not apply to.
	Plan     string
	Currency string
	Charges  int64
	Now      time.Time
}

// Evaluate answers the discount a promotion gives, or why it does not apply.
func (p *Promotion) Evaluate(acct domain.Account, pu Purchase) (int64, *CodeError) {
	bad := func(code, msg string) (int64, *CodeError) {
		return 0, &CodeError{Code: p.Code, ErrorCode: code, Message: msg}
	}
	switch {
	case !p.ValidFrom.IsZero() && pu.Now.Before(p.ValidFrom),
		!p.ValidUntil.IsZero() && !pu.Now.Before(p.ValidUntil),
		p.MaxRedemptions > 0 && p.Redemptions >= p.MaxRedemptions,
		p.Kind == KindFixed && !strings.EqualFold(p.Currency, pu.Currency),
		p.FirstTimeOnly && !acct.FirstTime:
		return bad(CodeNotValid, MsgNotValid)
	case acct.Used(p.Code):
		return bad(CodeAlreadyUsed, MsgCodeUsed)
	case pu.Business && !p.BusinessAllowed:
		return bad(CodeRenewalBusiness, MsgRenewalBusiness)
	case pu.Renewal && !pu.Upgrade && !p.AppliesRenewal:
		return bad(CodeRenewalIndividual, MsgRenewalIndividual)
	case pu.Upgrade && !p.AppliesUpgrade, !pu.Renewal && !p.AppliesNew:
		return bad(CodeNotValid, MsgNotValid)
	case len(p.EligiblePlans) > 0 && (pu.Plan == "" || !containsFold(p.EligiblePlans, pu.Plan)):
		return bad(CodeNotValid, MsgNotValid)
	case pu.Charges < p.MinAmountInCents:
		return bad(CodeNotValid, MsgNotValid)
	}
	var d int64
	switch p.Kind {
	case KindPercent:
		d = domain.RoundHalfUp(pu.Charges*p.PercentBP, promoRateDenominatorBPS)
	case KindFixed:
		d = p.AmountInCents
	}
	return min(max(d, 0), pu.Charges), nil
}

// NoticeFor answers the promotion's notice for this account, if it applies.
func (p *Promotion) NoticeFor(acct domain.Account) *Info {
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
	return &Info{Code: p.Code, Notice: p.Notice, Message: p.NoticeMessage, AlwaysView: p.AlwaysView, RemoveCode: p.RemoveOnNotice}
}

// DefaultPerOrder is how many promotions one order takes unless configured otherwise
// (CHECKOUT_PROMOTIONS_PER_ORDER): promotions do not stack.
const DefaultPerOrder = 1

// Stacking is the rule of how many promotions apply to one order: the first that apply,
// in the order entered; a further one that would apply is refused with CodeNotStackable.
type Stacking struct {
	// PerOrder is the most promotions one order takes; 0 means DefaultPerOrder.
	PerOrder int
	applied  int
}

// Take answers nil when one more promotion may apply (and counts it), else the refusal of
// code.
func (s *Stacking) Take(code string) *CodeError {
	limit := s.PerOrder
	if limit <= 0 {
		limit = DefaultPerOrder
	}
	if s.applied >= limit {
		msg := MsgOnePromotion
		if limit > 1 {
			msg = fmt.Sprintf(msgSomePromotions, limit)
		}
		return &CodeError{Code: code, ErrorCode: CodeNotStackable, Message: msg}
	}
	s.applied++
	return nil
}

// Reason says on the invoice line why the discount is there.
func (p *Promotion) Reason() string {
	if p.Kind == KindPercent {
		return fmt.Sprintf("promotion %s: %s%% off", strings.ToUpper(p.Code), strconv.FormatFloat(float64(p.PercentBP)/100, 'f', -1, 64))
	}
	return fmt.Sprintf("promotion %s", strings.ToUpper(p.Code))
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
