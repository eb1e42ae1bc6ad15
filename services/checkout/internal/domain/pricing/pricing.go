// Package pricing prices a cart the configuration rules normalised: invoice lines per
// licence or per organisation, business tier prices, promotions, credit for the unused days
// of a changed subscription, tax, gift certificates and account balance; it detects the
// plan change and signs the quote that submit checks.
package pricing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// Invoice item types (spec 000 §3).
const (
	ItemPlan           = "PLAN"
	ItemPlanAddOn      = "PLAN_ADD_ON"
	ItemPlanDiscount   = "PLAN_DISCOUNT"
	ItemGiftDiscount   = "GIFT_CERTIFICATE_DISCOUNT"
	ItemSubscriptionCr = "SUBSCRIPTION_CREDIT"
	ItemAccountBalance = "ACCOUNT_BALANCE"
	BundleItemBundle   = "BUNDLE"
	BundleItemOption   = "BUNDLE_OPTION"
	BundleItemAddOn    = "BUNDLE_ADD_ON"
)

// What a purchase does to the subscription.
const (
	ChangeNew     = "new"
	ChangeRenewal = "renewal"
	ChangeChange  = "change"
)

// QuoteTTL is how long a preview's quote may be submitted.
const QuoteTTL = 30 * time.Minute

// Line is one invoice line. AmountInCents = UnitAmountInCents * Quantity, or the unit amount
// when the line has no add-on code (then Quantity is 0). Discounts and credits are negative.
type Line struct {
	Type              string
	AddOnCode         string
	PlanType          string
	Description       string
	Reason            string
	UnitAmountInCents int64
	Quantity          int64
	AmountInCents     int64
	Key               string
	BundleAddOnCode   string
	BundleItemType    string
	// PostTax lines (gift certificates, account balance) pay the invoice after tax; they are
	// not part of the subtotal, and every page, mail and PDF lists them below the tax (their
	// descriptions say "Paid from …"), so each column sums where it is printed.
	PostTax bool
}

// Invoice is a priced cart.
type Invoice struct {
	Currency               string
	Lines                  []Line
	SubtotalInCents        int64 // sum of the lines that are not PostTax
	TaxInCents             int64
	TotalInCents           int64 // subtotal + tax + PostTax lines, never negative
	ChargesInCents         int64 // sum of plan and add-on lines
	DiscountInCents        int64
	CreditInCents          int64 // subscription credit used on this invoice
	CreditToAccountInCents int64 // subscription credit left over, to the account balance
	GiftCreditInCents      int64
	AccountBalanceInCents  int64
	Tax                    tax.Rule
	Counter                int64
	Errors                 []string
	PlanErrors             []string
	SelectionErrors        []string
}

// PlanChange is the comparison with the current subscription (spec 000 §4).
type PlanChange struct {
	Show, Upgraded, Downgraded, RegionChange, JeppChange, FeatureChange bool
	RunwayChange, Sunsetting, NeedsConfirmation                         bool
	Message, SunsetMessage                                              string
	SunsettingAddOns                                                    []string
}

// Pricing is everything besides the cart that a preview depends on. The app layer loads
// it (promotions, gift certificates and the account are data) before calling Preview.
type Pricing struct {
	Now        time.Time
	Promotions map[string]*promotion.Promotion       // by lower-case code
	Gifts      map[string]*promotion.GiftCertificate // by lower-case code
	Account    domain.Account
	Counter    int64
	QuoteKey   []byte
	// PromotionsPerOrder is how many promotions one order takes (0: one; they do not stack).
	PromotionsPerOrder int
	// SellerCountry is the EU member state the seller is established in (its VAT number's):
	// a business there is taxed, not reverse-charged (tax.For).
	SellerCountry string
}

// Preview is the answer of the invoice preview.
type Preview struct {
	Cart          *domain.Cart
	Invoice       Invoice
	PlanChange    PlanChange
	PromoInfo     []promotion.Info
	CodeErrors    []promotion.CodeError
	QuoteID       string
	QuoteExpires  time.Time
	QuoteHash     string
	RenewalAmount int64
	RenewalDate   time.Time
	TermStart     time.Time
	// Change is what submitting does to the subscription: ChangeNew, ChangeRenewal (the
	// term extends from the current end) or ChangeChange (the term restarts today).
	Change     string
	CatalogVer string
}

// PerOrganization reports whether an entry is bought once per organisation rather than per
// licence: business features (dispatch, runway tools, EFB bridge, flight tracking) and
// runway-analysis packages (priced per aircraft tail). Everything else — the plan, regions,
// feature add-ons, chart coverages and VFR packages — is per licence.
func PerOrganization(e *domain.Entry) bool {
	return e.FeatureGroup != "" || e.RunwayKind == "jet" || e.RunwayKind == "turboprop" || e.PricingType == "TAIL_ALLOCATION"
}

// lineName is a line's description: the entry's title and the term it is bought for, the
// term once — a title that names its term already ("Starter — 3 Months") is not given it
// again ("… — 3 Months — 3 months", issue 42).
func lineName(title string, term *domain.Entry) string {
	t := strings.ToLower(title)
	if strings.Contains(t, "month") || strings.Contains(t, "year") {
		return title
	}
	return fmt.Sprintf("%s — %s", title, termLabel(term))
}

func termLabel(e *domain.Entry) string {
	if e.Months() == 3 {
		return "3 months"
	}
	if e.Months() == 12 {
		return "1 year"
	}
	return fmt.Sprintf("%d months", e.Months())
}

// PriceCart prices a normalised cart. It never fails: problems are in the error lists.
func PriceCart(cat *domain.Catalog, cart *domain.Cart, p Pricing) *Preview {
	pv := &Preview{Cart: cart, CatalogVer: cat.Version()}
	inv := &pv.Invoice
	inv.Currency = cart.Currency.Code
	inv.Counter = p.Counter
	inv.Errors = slices.Clone(cart.Errors)
	inv.PlanErrors = slices.Clone(cart.PlanErrors)
	inv.SelectionErrors = slices.Clone(cart.SelectionErrors)
	today := startOfDay(p.Now)

	addCharges(cat, cart, inv)
	change := setTerms(cat, pv, today)
	due := applyPromotions(pv, p, inv.ChargesInCents)
	if change {
		due = applyCredit(cat, pv, today, due)
	}

	// Tax on what remains due before payment instruments.
	inv.SubtotalInCents = due
	inv.Tax = tax.For(p.SellerCountry, cart.Country, cart.Zip, cart.BusinessID, cart.Currency)
	inv.TaxInCents = inv.Tax.Amount(due)
	inv.TotalInCents = applyPayments(pv, p, due+inv.TaxInCents)

	pv.QuoteHash = quoteHash(cat.Version(), cart, inv)
	pv.QuoteExpires = p.Now.Add(QuoteTTL).UTC().Truncate(time.Second)
	pv.QuoteID = QuoteID(p.QuoteKey, pv.QuoteHash, cart.Currency.Code, pv.QuoteExpires)
	return pv
}

// addCharges adds a line for every add-on of the cart priced in its currency (hiddenPlan
// entries excepted) and sums them into the charges.
func addCharges(cat *domain.Catalog, cart *domain.Cart, inv *Invoice) {
	for _, code := range cart.AddOns {
		e, ok := cat.Entry(code)
		if !ok {
			continue
		}
		price, ok := e.Prices[cart.Currency.Code]
		if !ok {
			continue // reported by the rules as 'Unavailable in ...'
		}
		if e.PlanType == domain.PlanTypeHidden {
			continue // spec 000 §3: hiddenPlan lines are dropped
		}
		l := chargeLine(cart, e, price)
		inv.Lines = append(inv.Lines, l)
		inv.ChargesInCents += l.AmountInCents
	}
}

// chargeLine prices one entry of the cart: per licence or once, the business tier price
// for the plan, and the reason for people.
func chargeLine(cart *domain.Cart, e *domain.Entry, price domain.Price) Line {
	unit := price.AmountInCents
	if price.Included {
		unit = 0
	}
	lineQty := int64(max(cart.Quantity, 1))
	if PerOrganization(e) || cart.Bundle {
		lineQty = 1
	}
	reason := ""
	l := Line{Type: ItemPlanAddOn, AddOnCode: e.Code, PlanType: e.PlanType, Key: ItemPlanAddOn + ":" + e.Code}
	switch {
	case e == cart.Plan:
		l.Type, l.Key = ItemPlan, ItemPlan+":"+e.Code
		unit, reason = planPrice(cart, e, unit)
		if cart.Bundle {
			l.BundleItemType = BundleItemBundle
		}
	case cart.Bundle && e.RunwayKind == "bundle":
		l.BundleItemType, l.BundleAddOnCode = BundleItemOption, cart.Plan.Code
		reason = "runway analysis model included with the bundle"
	default:
		reason = addOnReason(e, price)
	}
	if lineQty > 1 && e != cart.Plan && !PerOrganization(e) {
		reason += fmt.Sprintf(", for each of %d licences", lineQty)
	}
	l.UnitAmountInCents, l.Quantity, l.AmountInCents = unit, lineQty, unit*lineQty
	term := cart.Plan
	if term == nil {
		term = e
	}
	l.Description = lineName(e.Title, term)
	l.Reason = reason
	return l
}

// planPrice answers the plan's unit price (the scheduled tier price for a business
// quantity) and the reason of its line.
func planPrice(cart *domain.Cart, e *domain.Entry, unit int64) (int64, string) {
	reason := ""
	if cart.Business && len(e.Tiers) > 0 {
		tier, tp := tierPrice(e, cart.Quantity, cart.Currency.Code)
		if tp != nil {
			unit = tp.AmountInCents
			reason = fmt.Sprintf("%s for %d licences (price for %d or more)", e.Title, cart.Quantity, tier)
		}
	}
	if reason == "" {
		reason = "the plan you chose"
		if cart.LegacyReplaced {
			reason = "replaces your legacy plan " + cart.ReplacedPlan
		}
	}
	if cart.Bundle {
		reason = fmt.Sprintf("bundle with %d licences", cart.Quantity)
	}
	return unit, reason
}

func addOnReason(e *domain.Entry, price domain.Price) string {
	switch {
	case price.Included:
		return "included with your plan"
	case e.IsRegion():
		return "region added to your plan"
	case e.IsChart() && e.Chart.Platform == "web":
		return "chart coverage on the web (App and Web are priced separately)"
	case PerOrganization(e):
		return "bought once for the organisation"
	}
	return "add-on you chose"
}

// setTerms sets what submitting does to the subscription, the plan change, the term and
// the renewal; it reports whether the cart changes the subscription.
func setTerms(cat *domain.Catalog, pv *Preview, today time.Time) bool {
	cart := pv.Cart
	pv.TermStart = today
	change := cart.Existing != nil && changed(cat, cart)
	pv.Change = ChangeNew
	if cart.Existing != nil {
		pv.Change = ChangeRenewal
		if change {
			pv.Change = ChangeChange
		}
		pv.PlanChange = detectChange(cat, cart)
		if !change && cart.Existing.TermEnd.After(today) {
			pv.TermStart = startOfDay(cart.Existing.TermEnd) // an unchanged renewal extends the term
		}
	}
	months := 12
	if cart.Plan != nil {
		months = cart.Plan.Months()
	}
	pv.RenewalDate = pv.TermStart.AddDate(0, months, 0)
	pv.RenewalAmount = pv.Invoice.ChargesInCents
	return change
}

// applyPromotions applies the promo codes in the order entered and answers what remains
// due.
func applyPromotions(pv *Preview, p Pricing, due int64) int64 {
	cart, inv := pv.Cart, &pv.Invoice
	pu := promotion.Purchase{Business: cart.Business, Renewal: cart.Renewal, Upgrade: pv.PlanChange.Upgraded,
		Currency: cart.Currency.Code, Charges: inv.ChargesInCents, Now: p.Now}
	if cart.Plan != nil {
		pu.Plan = cart.Plan.Code
	}
	var seen []string
	stack := promotion.Stacking{PerOrder: p.PromotionsPerOrder}
	for _, code := range cart.PromoCodes {
		if containsFold(seen, code) {
			pv.refuse(promotion.CodeError{Code: code, ErrorCode: promotion.CodeAlreadyUsed, Message: promotion.MsgCodeUsed})
			continue
		}
		seen = append(seen, code)
		promo := p.Promotions[strings.ToLower(code)]
		if promo == nil {
			pv.refuse(promotion.CodeError{Code: code, ErrorCode: promotion.CodeNotValid, Message: promotion.MsgNotValid})
			continue
		}
		if n := promo.NoticeFor(p.Account); n != nil {
			// A notice already viewed is not asked again, unless it must always be viewed.
			if n.AlwaysView || !containsFold(cart.ViewedPromos, promo.Code) {
				pv.PromoInfo = append(pv.PromoInfo, *n)
			}
			if n.RemoveCode {
				pv.CodeErrors = append(pv.CodeErrors, promotion.CodeError{Code: promo.Code, ErrorCode: promotion.CodePromoPop})
				continue
			}
		}
		pu.Charges = due
		d, cerr := promo.Evaluate(p.Account, pu)
		if cerr != nil {
			pv.refuse(*cerr)
			continue
		}
		if d == 0 {
			continue
		}
		if cerr := stack.Take(promo.Code); cerr != nil {
			pv.refuse(*cerr)
			continue
		}
		due -= d
		inv.DiscountInCents += d
		inv.Lines = append(inv.Lines, Line{Type: ItemPlanDiscount, Description: "Promotion " + promo.Code,
			Reason: promo.Reason(), UnitAmountInCents: -d, AmountInCents: -d, Key: ItemPlanDiscount + ":" + strings.ToUpper(promo.Code)})
	}
	return due
}

// refuse reports a refused code both as a code error and in the invoice's errors.
func (pv *Preview) refuse(ce promotion.CodeError) {
	pv.CodeErrors = append(pv.CodeErrors, ce)
	pv.Invoice.Errors = append(pv.Invoice.Errors, ce.Message)
}

// applyCredit credits the unused days of the current term (a change restarts the term
// today) and answers what remains due; credit above it goes to the account balance.
func applyCredit(cat *domain.Catalog, pv *Preview, today time.Time, due int64) int64 {
	cart, inv := pv.Cart, &pv.Invoice
	ex := cart.Existing
	if !ex.TermEnd.After(today) || !strings.EqualFold(ex.Currency, cart.Currency.Code) {
		return due
	}
	days, credit := unusedCredit(ex, today)
	if credit <= 0 {
		return due
	}
	used := min(credit, due)
	inv.CreditToAccountInCents = credit - used
	inv.CreditInCents = used
	due -= used
	name := ex.Name
	if e, ok := cat.Entry(ex.PlanCode); ok && name == "" {
		name = e.Title
	}
	// The description says what is credited; the reason, where: before tax, and any rest
	// to the account balance after the purchase.
	reason := "your current term's unused days, credited before tax"
	if inv.CreditToAccountInCents > 0 {
		reason += fmt.Sprintf("; the other %s goes to your account balance after the purchase", domain.FormatMoney(inv.CreditToAccountInCents, cart.Currency))
	}
	inv.Lines = append(inv.Lines, Line{Type: ItemSubscriptionCr, Description: fmt.Sprintf("Credit for %d unused days of %s", days, name),
		Reason: reason, UnitAmountInCents: -used, AmountInCents: -used, Key: ItemSubscriptionCr + ":" + ex.ID})
	return due
}

// applyPayments lets the gift certificates, then the account balance, pay the total after
// tax, and answers what remains to charge.
func applyPayments(pv *Preview, p Pricing, total int64) int64 {
	cart, inv := pv.Cart, &pv.Invoice
	for _, code := range cart.GiftCodes {
		g := p.Gifts[strings.ToLower(code)]
		switch {
		case g == nil:
			pv.refuse(promotion.CodeError{Code: code, ErrorCode: promotion.CodeGiftNotFound, Message: promotion.MsgGiftNotFound})
			continue
		case !strings.EqualFold(g.Currency, cart.Currency.Code):
			pv.refuse(promotion.CodeError{Code: code, ErrorCode: promotion.CodeGiftCurrency, Message: promotion.MsgGiftCurrency})
			continue
		case g.BalanceInCents <= 0:
			pv.refuse(promotion.CodeError{Code: code, ErrorCode: promotion.CodeGiftSpent, Message: promotion.MsgGiftSpent})
			continue
		}
		use := min(max(g.BalanceInCents, 0), total)
		if use <= 0 {
			continue
		}
		total -= use
		inv.GiftCreditInCents += use
		// The line names the certificate by its masked code and its hash: the lines are
		// stored with the order and shown on the receipt, which is no place for a bearer code.
		masked := promotion.MaskGiftCode(code)
		inv.Lines = append(inv.Lines, Line{Type: ItemGiftDiscount, Description: "Paid from gift certificate " + masked,
			Reason:            fmt.Sprintf("after tax; %s left on it after this order", domain.FormatMoney(g.BalanceInCents-use, cart.Currency)),
			UnitAmountInCents: -use, AmountInCents: -use, Key: ItemGiftDiscount + ":" + promotion.GiftRef(code), PostTax: true})
	}
	if b := p.Account.BalanceInCents; b > 0 && total > 0 && strings.EqualFold(p.Account.BalanceCurrency, cart.Currency.Code) {
		use := min(b, total)
		total -= use
		inv.AccountBalanceInCents = use
		inv.Lines = append(inv.Lines, Line{Type: ItemAccountBalance, Description: "Paid from account balance",
			Reason:            fmt.Sprintf("after tax; %s of balance available", domain.FormatMoney(b, cart.Currency)),
			UnitAmountInCents: -use, AmountInCents: -use, Key: ItemAccountBalance, PostTax: true})
	}
	return total
}

func tierPrice(e *domain.Entry, qty int, cur string) (int, *domain.Price) {
	var out *domain.Price
	tier := 0
	for i := range e.Tiers {
		t := &e.Tiers[i]
		if t.MinQuantity <= qty {
			if p, ok := t.Price[cur]; ok {
				out, tier = &p, t.MinQuantity
			}
		}
	}
	return tier, out
}

// unusedCredit answers the whole unused days of every paid term that has not ended (the
// current one and those an early renewal stacked it after) and their value: each term's
// price times its unused/term days, rounded down per term so a credit never exceeds what
// was paid.
func unusedCredit(s *domain.Subscription, today time.Time) (int64, int64) {
	var days, credit int64
	for _, t := range append(append([]domain.Term(nil), s.EarlierTerms...), domain.Term{Start: s.TermStart, End: s.TermEnd, PriceInCents: s.PriceInCents}) {
		start, end := startOfDay(t.Start), startOfDay(t.End)
		termDays := int64(end.Sub(start).Hours() / 24)
		from := today
		if start.After(today) {
			from = start // a stacked term not begun: all of it is unused
		}
		unused := DaysRemaining(end, from)
		if termDays <= 0 || unused <= 0 || t.PriceInCents <= 0 {
			continue
		}
		unused = min(unused, termDays)
		days += unused
		credit += t.PriceInCents * unused / termDays
	}
	return days, credit
}

// changed reports whether the cart differs from the current subscription (add-ons or
// quantity); a renewal of the same configuration is not a change.
func changed(cat *domain.Catalog, c *domain.Cart) bool {
	ex := c.Existing
	if ex.Quantity != c.Quantity {
		return true
	}
	return !sameSet(visible(c.AddOns), visible(asRenewed(cat, c)))
}

// asRenewed answers the subscription's add-ons as renewing it gives them: a legacy plan
// replaced by its successor, with the region the successor includes when the legacy plan
// had none (rules.replaceLegacy). The store makes that replacement, not the subscriber, so
// it is no change: renewing a legacy plan before its term ends (a renewal window) extends
// the term at the renewal price, without a credit or a restart today (issue 17).
func asRenewed(cat *domain.Catalog, c *domain.Cart) []string {
	ex := c.Existing
	if !c.LegacyReplaced || c.Plan == nil || c.ReplacedPlan != ex.PlanCode {
		return ex.AddOns
	}
	out := make([]string, 0, len(ex.AddOns)+1)
	region := false
	for _, code := range ex.AddOns {
		if code == c.ReplacedPlan {
			code = c.Plan.Code
		}
		if e, ok := cat.Entry(code); ok && e.IsRegion() {
			region = true
		}
		out = append(out, code)
	}
	if def := c.Currency.DefaultRegion; !region && def != "" && slices.Contains(c.AddOns, def) {
		out = append(out, def)
	}
	return out
}

func visible(codes []string) []string {
	return slices.DeleteFunc(slices.Clone(codes), func(c string) bool { return strings.HasSuffix(c, "_not_purchased") })
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// detectChange compares the subscription's add-ons with the cart (spec 000 §4).
func detectChange(cat *domain.Catalog, c *domain.Cart) PlanChange {
	ex := c.Existing
	renewed := asRenewed(cat, c)
	var pc PlanChange
	oldPlan, _ := cat.Entry(ex.PlanCode)
	if c.Plan != nil && oldPlan != nil && c.Plan.Code != oldPlan.Code && !(c.LegacyReplaced && c.ReplacedPlan == oldPlan.Code) {
		op, np := oldPlan.Prices[c.Currency.Code], c.Plan.Prices[c.Currency.Code]
		switch {
		case np.AmountInCents > op.AmountInCents:
			pc.Upgraded = true
		case np.AmountInCents < op.AmountInCents:
			pc.Downgraded = true
		}
	}
	kind := func(codes []string, pred func(*domain.Entry) bool) []string {
		var out []string
		for _, code := range codes {
			if e, ok := cat.Entry(code); ok && pred(e) {
				out = append(out, code)
			}
		}
		return out
	}
	isFeature := func(e *domain.Entry) bool { return e.PlanType == "feature" && !e.IsRunway() }
	isRunway := func(e *domain.Entry) bool { return e.IsRunway() && e.PlanType != domain.PlanTypeHidden }
	isJepp := func(e *domain.Entry) bool { return e.PlanType == "jeppesen" }
	pc.RegionChange = !sameSet(kind(renewed, (*domain.Entry).IsRegion), kind(c.AddOns, (*domain.Entry).IsRegion)) && c.RegionMode != "none"
	pc.JeppChange = !sameSet(kind(renewed, isJepp), kind(c.AddOns, isJepp))
	pc.FeatureChange = !pc.Upgraded && !sameSet(kind(renewed, isFeature), kind(c.AddOns, isFeature))
	pc.RunwayChange = !sameSet(kind(renewed, isRunway), kind(c.AddOns, isRunway))
	for _, code := range ex.AddOns {
		if e, ok := cat.Entry(code); ok && e.Deprecated && !slices.Contains(c.AddOns, code) && code != ex.PlanCode {
			pc.SunsettingAddOns = append(pc.SunsettingAddOns, code)
		}
	}
	pc.Sunsetting = len(pc.SunsettingAddOns) > 0
	other := pc.RegionChange || pc.JeppChange || pc.FeatureChange || pc.RunwayChange || pc.Sunsetting
	pc.NeedsConfirmation = (pc.Downgraded || other) && !c.Bundle
	pc.Show = pc.NeedsConfirmation
	if pc.NeedsConfirmation {
		pc.Message = "Changing your subscription restarts it today; the unused time of your current term is credited. Proceed to checkout or keep editing."
		if pc.Downgraded {
			pc.Message = "You are downgrading your plan. " + pc.Message
		}
	}
	if pc.Sunsetting {
		var names []string
		for _, code := range pc.SunsettingAddOns {
			if e, ok := cat.Entry(code); ok {
				names = append(names, e.Title)
			}
		}
		pc.SunsetMessage = "No longer sold and removed at this change: " + strings.Join(names, ", ") + "."
	}
	return pc
}

// quoteHash is the SHA-256 of what was priced: catalogue and tax-table versions, the cart
// and every line and total. Submit recomputes it and refuses a different one.
func quoteHash(version string, c *domain.Cart, inv *Invoice) string {
	h := sha256.New()
	w := func(parts ...any) { fmt.Fprintln(h, parts...) }
	w("catalog", version, "tax", tax.Rates().Version, inv.Tax.Jurisdiction, inv.Tax.ReverseCharge)
	w("cart", c.Currency.Code, c.Quantity, strings.Join(c.AddOns, ","), c.AccountID, c.Email)
	w("codes", strings.Join(c.PromoCodes, ","), strings.Join(c.GiftCodes, ","))
	for _, l := range inv.Lines {
		w("line", l.Key, l.UnitAmountInCents, l.Quantity, l.AmountInCents)
	}
	w("totals", inv.SubtotalInCents, inv.TaxInCents, inv.TotalInCents, inv.CreditToAccountInCents)
	return hex.EncodeToString(h.Sum(nil))
}

// QuoteID signs a quote hash, the currency priced and the expiry, so a later submit can
// check that it was issued here and is still valid without storing previews, and price in
// the quote's currency without asking where the buyer is again.
func QuoteID(key []byte, hash, currency string, expires time.Time) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s|%d|%s", hash, expires.Unix(), currency)
	return "q_" + strconv.FormatInt(expires.Unix(), 36) + "_" + currency + "_" + hex.EncodeToString(m.Sum(nil))[:32]
}

// Quote is what a quote id says in the clear (its signature is checked against a fresh
// price: QuoteID).
type Quote struct {
	Currency string
	Expires  time.Time
}

// ParseQuote reads a quote id's currency and expiry; ok is false for anything QuoteID does
// not make.
func ParseQuote(id string) (q Quote, ok bool) {
	parts := strings.Split(id, "_")
	if len(parts) != 4 || parts[0] != "q" || len(parts[2]) != 3 || strings.ToUpper(parts[2]) != parts[2] {
		return Quote{}, false
	}
	exp, err := strconv.ParseInt(parts[1], 36, 64)
	if err != nil {
		return Quote{}, false
	}
	return Quote{Currency: parts[2], Expires: time.Unix(exp, 0)}, true
}

// DaysRemaining is the number of whole days from now's day to the day a term ends (UTC
// days, 0 once it ended): the one count of unused days, which the subscription's
// daysRemaining shows and the credit for a change pays (unusedCredit).
func DaysRemaining(end, now time.Time) int64 {
	return max(0, int64(startOfDay(end).Sub(startOfDay(now)).Hours()/24))
}

func startOfDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
