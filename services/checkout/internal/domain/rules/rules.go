// Package rules holds checkout's configuration rules (spec 000 §4, §6): Normalize turns a
// configuration as the page sent it into the cart that pricing prices (start plan,
// renewal, upgrade, legacy replacement, quantity, regions, chart-provider platforms, every
// mutual exclusion, allocations, sections and runway aircraft), and the validation of
// spec 000 §5 and spec 001 §5 with the spec's exact messages.
package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// Rules holds the settings of the configuration rules that are not catalogue data.
type Rules struct {
	// SalesContact fills '{sales contact}' in the spec's messages.
	SalesContact string
	// RecaptchaRequired: validation needs the human-verification value.
	RecaptchaRequired bool
}

// Messages of spec 000 §5 (exact wording).
const (
	MsgBusinessMinimum = "business plans require a minimum of two licenses"
	MsgSelectPlan      = "You must select at least one plan."
	MsgNoRegion        = "No region(s) selected."
	MsgSelectHondaJet  = "Please select a HondaJet runway analysis"
	MsgPleaseConfirm   = "please confirm"
	MsgEula            = "Please agree to our terms of use."
	MsgEmail           = "Please enter your email address."
	MsgOrganization    = "Please enter your organization name."
	MsgCardBlank       = "Credit Card cannot be blank"
	MsgNameBlank       = "Name cannot be blank"
	// MsgNameTwoWords: the spec flags a cardholder name without two words, unworded.
	MsgNameTwoWords       = "Please enter the cardholder's first and last name."
	MsgPostalBlank        = "Postal Code cannot be blank"
	MsgSelectCountry      = "Please select a country"
	MsgHuman              = "Please verify you are a human."
	MsgChildAccount       = "Your subscription is managed by your group account. Please contact your account administrator to make changes."
	MsgThirdParty         = "This subscription is controlled by a third party (Military Flight Bag for a national agency) and cannot be changed here."
	MsgCurrencyNotAllowed = "Sorry, that currency is not allowed for your account."
	// Not worded by the spec (it names the rule only).
	MsgRegionsAllocated  = "Regions cannot be changed while your licenses are allocated to users. Make changes on the users page of the product's web site."
	MsgEuConsent         = "Please give your consent to the processing of your data to continue."
	MsgAllocationsExpire = "Some of your aircraft allocations end with this change. Choose whether to keep them."
	// MsgUserLicencesExpire: a pool licensed to users lowered below the users holding it,
	// whose newest assignments the allocation service then expires.
	MsgUserLicencesExpire = "Some of your users lose their licences with this change. Confirm to continue."
	CodeAllocatedProduct  = "ALLOCATED_PRODUCT"
	CodeAllocationsExpire = "ALLOCATIONS_EXPIRE"
	// Codes of spec 000 §8.
	CodeChildAccount       = "CHILD_ACCOUNT_PURCHASE"
	CodeCurrencyNotAllowed = "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT"
)

// MsgAllocatedProduct says an allocated product cannot be toggled here (spec 000 §6).
func MsgAllocatedProduct(title string) string {
	return fmt.Sprintf("%s is allocated to users and cannot be changed here. Make changes on the users page of the product's web site.", title)
}

// MsgRunwayNotCovered: runway analysis covers only aircraft of the purchased model.
func MsgRunwayNotCovered(model string) string {
	return fmt.Sprintf("Runway analysis covers only aircraft of the purchased model: %s is not covered by the runway analysis in your cart.", model)
}

// MsgAlreadyBusiness is the existing-business message of spec 000 §5.
func (r Rules) MsgAlreadyBusiness() string {
	return fmt.Sprintf("You are already subscribed under a business plan. Please contact %s if you would like to switch to an individual plan.", r.SalesContact)
}

// MsgMilitaryLicenses is the existing-military message of spec 000 §5.
func (r Rules) MsgMilitaryLicenses() string {
	return fmt.Sprintf("Please contact %s to add licenses to your Military Flight Bag subscription.", r.SalesContact)
}

// MsgContactSales is shown when more licences than the maximum are asked for.
func (r Rules) MsgContactSales(max int) string {
	return fmt.Sprintf("For more than %d licenses, please contact %s.", max, r.SalesContact)
}

// MsgUnavailableIn is spec 000 §5's 'Unavailable in {symbol}{currency}'.
func MsgUnavailableIn(title string, cur domain.Currency) string {
	return fmt.Sprintf("%s: Unavailable in %s%s", title, cur.Symbol, cur.Code)
}

type builder struct {
	cat   *domain.Catalog
	rules Rules
	cart  *domain.Cart
	codes []string
	// qtyRaw is the quantity as typed (or the subscription's); qty and numeric are what
	// domain.ParseQuantity made of it.
	qtyRaw  string
	qty     int
	numeric bool
}

// adjust notes a change the rules made (a note of the rules, not shown to the buyer).
func (b *builder) adjust(code, action, format string, args ...any) {
	b.cart.Adjustments = append(b.cart.Adjustments, domain.Adjustment{Code: code, Action: action, Reason: fmt.Sprintf(format, args...)})
}

// tell is adjust for a change the buyer is told about, msg worded for the buyer.
func (b *builder) tell(code, action, msg string) {
	b.cart.Adjustments = append(b.cart.Adjustments, domain.Adjustment{Code: code, Action: action, Reason: msg, Notice: true})
}

func (b *builder) title(code string) string {
	if e, ok := b.cat.Entry(code); ok {
		return e.Title
	}
	return code
}

// remove drops the codes for which drop answers a reason; notice: the reason is worded for
// the buyer (tell), else it is a note of the rules (adjust).
func (b *builder) remove(notice bool, drop func(e *domain.Entry) string) {
	out := b.codes[:0]
	for _, code := range b.codes {
		e, _ := b.cat.Entry(code)
		if e != nil && e != b.cart.Plan {
			if reason := drop(e); reason != "" {
				if notice {
					b.tell(code, "removed", reason)
				} else {
					b.adjust(code, "removed", "%s", reason)
				}
				continue
			}
		}
		out = append(out, code)
	}
	b.codes = out
}

// includedWith reports whether the plan already includes a feature it cannot buy: a
// cheaper plan of its own group buys it (forPlans names the plans that do not include the
// feature, catalog.yaml). The pricing page and /buy read forPlans with the same rule
// (featureStatus in web/libs/api-client), so the three never disagree.
func (b *builder) includedWith(feature, plan *domain.Entry) bool {
	for _, code := range feature.ForPlans {
		if lower, ok := b.cat.Entry(code); ok && lower.Group == plan.Group && lower.Order < plan.Order {
			return true
		}
	}
	return false
}

func (b *builder) add(code, reason string) {
	if !slices.Contains(b.codes, code) {
		b.codes = append(b.codes, code)
		b.adjust(code, "added", "%s", reason)
	}
}

// Normalize applies the rules of spec 000 §4 to a configuration: start plan, renewal from
// the existing subscription, upgrade and extras, business downgrade, legacy replacement,
// quantity rules, regions, chart-provider choices and every mutual exclusion. Problems the
// buyer must fix are in the cart's error lists; changes the rules made are Adjustments.
func (r Rules) Normalize(cat *domain.Catalog, in domain.Input, existing *domain.Subscription) *domain.Cart {
	cart := &domain.Cart{RegionMode: "checkbox", PaymentMethod: strings.ToUpper(strings.TrimSpace(in.PaymentMethod))}
	b := &builder{cat: cat, rules: r, cart: cart}
	b.setBuyer(in)
	b.setCurrency(in)

	// New versus renewal.
	b.codes = dedupe(in.AddOns)
	b.qtyRaw = strings.TrimSpace(in.Quantity)
	if existing != nil && existing.Valid {
		b.renew(in, existing)
	}
	b.dropUnknown()
	b.start(in, existing)
	b.applyRequest(in)

	// One plan: the last plan selected wins (plans are radio buttons).
	cart.Plan = b.findPlan()
	if cart.Plan == nil {
		cart.PlanErrors = append(cart.PlanErrors, MsgSelectPlan)
	}
	// Quantity, first pass (legacy replacement depends on it).
	b.qty, b.numeric = domain.ParseQuantity(b.qtyRaw)
	b.replaceLegacy(existing)
	b.setKind(existing)
	b.applyQuantity(existing)
	if existing != nil && existing.Valid {
		b.checkExisting(in, existing)
	}
	if in.Caller.Child {
		// A child account of a group cannot change the subscription (spec 000 §6, §8).
		cart.PlanErrors = append(cart.PlanErrors, MsgChildAccount)
		cart.ErrorCodes = append(cart.ErrorCodes, CodeChildAccount)
	}
	if cart.Plan != nil {
		b.applyChartChoice(in.ChartChoice)
		b.applyUpsell()
		b.keepAllocated(in)
		b.applyPlanRules(in)
		b.applyExclusions()
		b.applyRegions()
		b.applyBusinessPairs()
		b.applyComplimentary()
		b.checkAllocated(in)
		b.checkSelections()
		b.checkRunwayAircraft(in.RunwayAircraft)
	}
	cart.EuConsentRequired = EuConsentRequired(cat, in.EuCustomer, cart.Country)
	cart.AddOns = b.codes
	return cart
}

// setBuyer fills who buys: e-mail and account id (the account id may arrive inside any
// UUID-shaped value; a logged-in caller's account and e-mail win, the e-mail is locked to
// the session), billing country, postal code, business id and the codes entered.
func (b *builder) setBuyer(in domain.Input) {
	cart := b.cart
	cart.Email = domain.NormalizeEmail(in.Email)
	cart.AccountID = domain.ExtractAccountID(in.AccountID)
	if cart.AccountID == "" && cart.Email != "" && !strings.Contains(cart.Email, "@") {
		cart.AccountID = domain.ExtractAccountID(cart.Email)
		if cart.AccountID != "" {
			cart.Email = ""
		}
	}
	cart.EmailLocked = in.DisableEmail
	if in.Caller.LoggedIn {
		cart.LoggedIn, cart.EmailLocked = true, true
		cart.AccountID = domain.ExtractAccountID(in.Caller.AccountID)
		cart.Email = domain.NormalizeEmail(in.Caller.Email)
	}
	cart.Country = domain.NormalizeCountry(in.Country)
	cart.Zip = strings.TrimSpace(in.Zip)
	cart.BusinessID = strings.TrimSpace(in.BusinessID)
	if cart.BusinessID != "" && cart.Country != "" && !b.cat.AllowsBusinessID(cart.Country) {
		cart.BusinessID = "" // spec 000 §5: cleared outside the business-id country list
	}
	cart.ChartsDisabled = strings.TrimSpace(in.JeppCustomerNo) != "" || in.JeppAccountActive
	cart.PromoCodes = cleanCodes(in.PromoCodes)
	cart.GiftCodes = cleanCodes(in.GiftCodes)
	cart.ViewedPromos = cleanCodes(in.ViewedPromos)
}

// setCurrency: USD for unknown; military carts use the fixed default currency.
func (b *builder) setCurrency(in domain.Input) {
	cur, ok := b.cat.Currency(in.Currency)
	if !ok || in.Military || in.MilitaryIntl {
		cur = b.cat.DefaultCurrency()
	}
	b.cart.Currency = cur
	b.cart.Military = in.Military || in.MilitaryIntl
	b.cart.MilitaryIntl = in.MilitaryIntl
	b.cart.Bundle = in.Bundle
}

// renew starts from the valid existing subscription: its account buys, its payment
// method, add-ons (unless others are asked for) and quantity (unless typed) carry over.
func (b *builder) renew(in domain.Input, existing *domain.Subscription) {
	cart := b.cart
	cart.Existing = existing
	cart.Renewal = true
	if cart.AccountID == "" {
		cart.AccountID = domain.ExtractAccountID(existing.AccountID) // the subscription's account buys
	}
	if existing.PaymentMethod != "" && cart.PaymentMethod == "" {
		cart.PaymentMethod = existing.PaymentMethod
	}
	if existing.PaymentSource == domain.PaymentComplimentary && cart.PaymentMethod == "" {
		cart.PaymentMethod = domain.PaymentComplimentary
	}
	if len(b.codes) == 0 && !in.BusinessDowngrade {
		b.codes = dedupe(existing.AddOns)
	}
	if b.qtyRaw == "" && existing.Quantity > 0 {
		b.qtyRaw = fmt.Sprint(existing.Quantity)
	}
	if existing.Military {
		cart.Military = true
	}
}

// dropUnknown reports and drops codes the catalogue does not know.
func (b *builder) dropUnknown() {
	b.codes = slices.DeleteFunc(b.codes, func(code string) bool {
		if _, ok := b.cat.Entry(code); !ok {
			b.cart.Errors = append(b.cart.Errors, fmt.Sprintf("Unknown add-on code %q.", code))
			return true
		}
		return false
	})
}

// start picks the start plan: the bundle, the military plan, or for an empty cart the
// start plan (BYOP's on that page) with the currency's default region.
func (b *builder) start(in domain.Input, existing *domain.Subscription) {
	cart, cur := b.cart, b.cart.Currency
	switch {
	case cart.Bundle:
		b.startBundle(existing)
	case cart.Military:
		start := domain.MilitaryStartPlan
		if cart.MilitaryIntl {
			start = domain.MilitaryIntlStartPlan
		}
		if p := b.findPlan(); p == nil || p.PlanType != "military" {
			b.setPlan(start, "military carts start from "+b.title(start))
			if se, _ := b.cat.Entry(start); se != nil && !se.NoRegionSelection {
				b.add(cur.DefaultRegion, "each plan includes one region")
			}
		}
	case len(b.codes) == 0:
		start := domain.StartPlan
		if _, ok := b.cat.Entry(domain.BYOPStartPlan); ok && in.IsBYOP {
			start = domain.BYOPStartPlan
		}
		b.codes = []string{start, cur.DefaultRegion}
	}
}

// applyRequest applies the business downgrade (individual Starter with the default
// region, one licence), an upgrade (a plan of the same type replaces the current one) and
// the extras asked for.
func (b *builder) applyRequest(in domain.Input) {
	if in.BusinessDowngrade {
		b.codes = []string{domain.DowngradePlan, b.cart.Currency.DefaultRegion}
		b.qtyRaw = "1"
		b.adjust(domain.DowngradePlan, "replaced", "business downgrade to %s", b.title(domain.DowngradePlan))
	}
	if up := strings.TrimSpace(in.Upgrade); up != "" {
		if ue, ok := b.cat.Entry(up); ok && ue.IsPlan() {
			if p := b.findPlan(); p == nil || p.PlanType == ue.PlanType {
				b.setPlan(up, "upgrade to "+ue.Title)
			}
		}
	}
	for _, x := range dedupe(in.Extras) {
		if _, ok := b.cat.Entry(x); ok {
			b.add(x, "requested as an extra")
		}
	}
}

// replaceLegacy replaces a deprecated plan, or the renewal of a plan that has a
// replacement, by its successor (the business one for several licences).
func (b *builder) replaceLegacy(existing *domain.Subscription) {
	cart, plan := b.cart, b.cart.Plan
	if plan == nil || plan.ReplacedBy == "" {
		return
	}
	legacy := plan.Deprecated || (cart.Renewal && existing != nil && existing.PlanCode == plan.Code)
	businessQty := b.numeric && b.qty > 1
	if plan.Code == "basic_us" && businessQty {
		legacy = false // still sold as a business plan; only single-licence holders move to Starter
	}
	if !legacy {
		return
	}
	to := plan.ReplacedBy
	if businessQty && plan.BusinessReplaced != "" {
		to = plan.BusinessReplaced
	}
	te, ok := b.cat.Entry(to)
	if !ok {
		return
	}
	cart.LegacyReplaced, cart.ReplacedPlan = true, plan.Code
	b.setPlan(to, fmt.Sprintf("%s is no longer sold; replaced by %s", plan.Title, te.Title))
	if !slices.ContainsFunc(b.codes, func(c string) bool { e, _ := b.cat.Entry(c); return e != nil && e.IsRegion() }) {
		// The replacement keeps the region the legacy plan covered (pro_ca: Canada), else the
		// currency's; a replaced plan that offered no region choice (the three-month mobile
		// plan) still gets one, or the cart would be refused for having none.
		b.add(b.legacyRegion(plan, cart.Currency.DefaultRegion), te.Title+" includes one region")
	}
	cart.Plan = te
}

// legacyRegion answers the region a legacy plan named by its code's suffix covered
// (pro_us, pro_ca, business_geo_ca: included_geo_<suffix>) when the catalogue has it, else
// fallback.
func (b *builder) legacyRegion(plan *domain.Entry, fallback string) string {
	if i := strings.LastIndex(plan.Code, "_"); i > 0 {
		region := "included_geo_" + plan.Code[i+1:]
		if e, ok := b.cat.Entry(region); ok && e.IsRegion() {
			return region
		}
	}
	return fallback
}

// setKind sets the kind of purchase from the plan: business, military, bundle.
func (b *builder) setKind(existing *domain.Subscription) {
	cart, plan := b.cart, b.cart.Plan
	if plan != nil {
		cart.Business = plan.PlanType == "business"
		cart.Military = cart.Military || plan.PlanType == "military"
		cart.MilitaryIntl = cart.MilitaryIntl || plan.MilitaryIntl
		cart.Bundle = plan.PlanType == "bundle"
	}
	if existing != nil && existing.Valid && existing.Quantity > 1 && !cart.Military && plan != nil && plan.PlanType != "individual" {
		cart.Business = true
	}
}

// applyQuantity applies the quantity rules: the bundle's licences, the business minimum
// and slider default, military at least one, individual one, and the maximum (the
// preset plus the maximum for larger subscriptions).
func (b *builder) applyQuantity(existing *domain.Subscription) {
	cart, qty, numeric := b.cart, b.qty, b.numeric
	max := domain.MaxQuantity
	if existing != nil && existing.Quantity > domain.MaxQuantity {
		max = existing.Quantity + domain.MaxQuantity
	}
	switch {
	case cart.Bundle:
		cart.Quantity = domain.BundleQuantity
	case cart.Business:
		switch {
		case b.qtyRaw == "":
			cart.Quantity = domain.SliderDefaultQuantity
		case !numeric:
			cart.Quantity = domain.BusinessMinQuantity
		case qty < domain.BusinessMinQuantity:
			cart.Errors = append(cart.Errors, MsgBusinessMinimum)
			cart.Quantity = domain.BusinessMinQuantity
		default:
			cart.Quantity = qty
		}
	case cart.Military:
		cart.Quantity = qty
		if !numeric || qty < 1 {
			cart.Quantity = 1
		}
	default:
		cart.Quantity = 1
	}
	if cart.Quantity > max {
		cart.Errors = append(cart.Errors, b.rules.MsgContactSales(max))
		cart.Quantity = max
	}
}

// checkExisting reports what the valid existing subscription does not allow: an
// individual quantity for a business subscriber, more military licences, a change by
// someone other than the group's child account, a third-party controlled subscription.
func (b *builder) checkExisting(in domain.Input, existing *domain.Subscription) {
	cart := b.cart
	newQty := cart.Quantity
	if b.numeric {
		newQty = b.qty
	}
	// The business downgrade (spec 000 §4) is the way to one licence that can-downgrade
	// offers: its own refusals (child account, third party) follow.
	if existing.Quantity > 1 && !existing.Military && newQty <= 1 && !in.BusinessDowngrade {
		cart.Errors = append(cart.Errors, b.rules.MsgAlreadyBusiness())
	}
	if existing.Military && existing.Quantity < 2 && newQty > 1 {
		cart.Errors = append(cart.Errors, b.rules.MsgMilitaryLicenses())
	}
	if existing.ChildAccount() && !in.Caller.Child && !in.Caller.Manager {
		cart.PlanErrors = append(cart.PlanErrors, MsgChildAccount)
		cart.ErrorCodes = append(cart.ErrorCodes, CodeChildAccount)
	}
	if existing.ThirdParty() {
		cart.PlanErrors = append(cart.PlanErrors, MsgThirdParty)
	}
}

func (b *builder) startBundle(existing *domain.Subscription) {
	codes := []string{domain.BundlePlan}
	src := b.codes
	if len(src) == 0 && existing != nil {
		src = existing.AddOns // the bundle starts from the subscription's geography and options
	}
	for _, code := range src {
		e, _ := b.cat.Entry(code)
		if e != nil && (e.IsRegion() || e.RunwayKind == "bundle") {
			codes = append(codes, code)
		}
	}
	if !slices.ContainsFunc(codes, func(c string) bool { e, _ := b.cat.Entry(c); return e != nil && e.IsRegion() }) {
		codes = append(codes, b.cart.Currency.DefaultRegion)
	}
	for _, code := range b.codes {
		if !slices.Contains(codes, code) {
			if e, _ := b.cat.Entry(code); e != nil && !e.IsPlan() {
				codes = append(codes, code)
			}
		}
	}
	b.codes = codes
}

// findPlan answers the last plan in the codes and removes every other plan.
func (b *builder) findPlan() *domain.Entry {
	var plan *domain.Entry
	for _, code := range b.codes {
		if e, _ := b.cat.Entry(code); e != nil && e.IsPlan() {
			plan = e
		}
	}
	if plan == nil {
		return nil
	}
	b.codes = slices.DeleteFunc(b.codes, func(code string) bool {
		e, _ := b.cat.Entry(code)
		if e != nil && e.IsPlan() && e != plan {
			b.adjust(code, "removed", "only one plan per subscription; %s was chosen", plan.Title)
			return true
		}
		return false
	})
	// The plan leads.
	i := slices.Index(b.codes, plan.Code)
	b.codes = append([]string{plan.Code}, slices.Delete(b.codes, i, i+1)...)
	return plan
}

func (b *builder) setPlan(code, reason string) {
	b.codes = slices.DeleteFunc(b.codes, func(c string) bool {
		e, _ := b.cat.Entry(c)
		return e != nil && e.IsPlan()
	})
	b.codes = append([]string{code}, b.codes...)
	b.adjust(code, "replaced", "%s", reason)
}

// applyPlanRules removes add-ons the plan or cart cannot have: forPlans, not_allowed_with
// groups and multi-quantity, commercial charts in military carts, BYOP-only, and every
// chart-provider plan while a chart-provider account number is typed.
func (b *builder) applyPlanRules(in domain.Input) {
	cart, plan := b.cart, b.cart.Plan
	planCodes := append([]string{plan.Code}, plan.BundleIncludes...)
	planGroups := []string{plan.Group}
	for _, inc := range plan.BundleIncludes {
		if ie, ok := b.cat.Entry(inc); ok {
			planGroups = append(planGroups, ie.Group)
		}
	}
	if cart.Business {
		planGroups = append(planGroups, "BUSINESS")
	}
	if cart.Military {
		planGroups = append(planGroups, "MILITARY")
	}
	// What the plan does not allow is told to the buyer: the add-on they chose was taken out.
	b.remove(true, func(e *domain.Entry) string {
		if e.IsPlan() {
			return ""
		}
		if len(e.ForPlans) > 0 && !hasAny(e.ForPlans, planCodes) && !e.IsRegion() {
			if b.includedWith(e, plan) {
				return fmt.Sprintf("%s is included with %s", e.Title, plan.Title)
			}
			return fmt.Sprintf("%s is not available with %s", e.Title, plan.Title)
		}
		for _, g := range e.NotAllowed.Groups {
			if slices.Contains(planGroups, g) {
				return fmt.Sprintf("%s is not available with %s", e.Title, plan.Title)
			}
		}
		if e.NotAllowed.MultiQuantity && cart.Quantity > 1 {
			return fmt.Sprintf("%s is only sold with a single licence", e.Title)
		}
		if cart.Military && e.Chart != nil && !e.MilitarySupp {
			return fmt.Sprintf("military carts do not include commercial chart coverage (%s)", e.Title)
		}
		if e.MilitarySupp && e.MilitaryIntl != cart.MilitaryIntl && cart.Military {
			return fmt.Sprintf("%s is not available with %s", e.Title, plan.Title)
		}
		if e.Deprecated && !(cart.Existing != nil && slices.Contains(cart.Existing.AddOns, e.Code)) {
			return fmt.Sprintf("%s is no longer sold", e.Title)
		}
		return ""
	})
	// Sections (spec 000 §6): the chart-provider IFR section only for a Plus plan, or a
	// military cart with one licence; military supplements only for an individual Plus plan.
	plus := isPlusPlan(plan)
	cart.ChartIfrVisible = (plus && !cart.Military) || (cart.Military && cart.Quantity == 1)
	cart.MilitarySuppVisible = plus && !cart.Military && !cart.Business && plan.PlanType == "individual"
	b.remove(false, func(e *domain.Entry) string {
		switch {
		case e.Chart == nil || !e.IsChart():
			return ""
		case e.MilitarySupp && cart.Military:
			if !cart.ChartIfrVisible {
				return fmt.Sprintf("%s is sold only with a single military licence", e.Title)
			}
		case e.MilitarySupp:
			if !cart.MilitarySuppVisible {
				return fmt.Sprintf("military supplements are sold only with an individual Plus plan (%s)", e.Title)
			}
		case !cart.ChartIfrVisible:
			return fmt.Sprintf("chart-provider IFR charts are sold only with a Plus plan (%s)", e.Title)
		}
		return ""
	})
	if cart.ChartsDisabled {
		// An existing chart-provider account: its coverages are bought there, so chart-provider
		// plans are removed and the coverage choices are disabled while a number is present.
		b.remove(false, func(e *domain.Entry) string {
			if e.IsChart() && !e.MilitarySupp {
				return fmt.Sprintf("%s comes with your chart-provider account", e.Title)
			}
			return ""
		})
	}
}

// applyExclusions walks the add-ons in selection order, so the later choice wins:
// a coverage already covered by a broader selected one is dropped; a broader one removes
// the narrower ones it excludes (the worldwide one every regional one, a VFR combination
// its components, the all-Europe chart the country charts); not_allowed_with add-ons and
// entries of the same manufacturer group replace each other.
func (b *builder) applyExclusions() {
	var kept []string
	for _, code := range b.codes {
		e, _ := b.cat.Entry(code)
		if e == nil || e.IsPlan() {
			kept = append(kept, code)
			continue
		}
		covered := ""
		for _, k := range kept {
			if ke, _ := b.cat.Entry(k); ke != nil && slices.Contains(ke.Exclude, code) {
				covered = ke.Title
			}
		}
		if covered != "" {
			b.adjust(code, "removed", "%s is already covered by %s", e.Title, covered)
			continue
		}
		kept = slices.DeleteFunc(kept, func(k string) bool {
			ke, _ := b.cat.Entry(k)
			if ke == nil || ke.IsPlan() {
				return false
			}
			switch {
			case slices.Contains(e.Exclude, k):
				b.adjust(k, "removed", "%s is covered by %s", ke.Title, e.Title)
				return true
			case slices.Contains(e.NotAllowed.AddOns, k) || slices.Contains(ke.NotAllowed.AddOns, code):
				b.adjust(k, "removed", "%s cannot be combined with %s", ke.Title, e.Title)
				return true
			case e.PlanTypeGroup != "" && e.PlanTypeGroup == ke.PlanTypeGroup:
				b.adjust(k, "removed", "%s replaces %s (one package per manufacturer group)", e.Title, ke.Title)
				return true
			}
			return false
		})
		kept = append(kept, code)
	}
	b.codes = kept
}

// applyRegions: radio buttons (exactly one, included) for the three-month plan, none for
// plans not available for region selection, checkboxes otherwise: one included region and
// any number of paid ones.
func (b *builder) applyRegions() {
	cart, plan := b.cart, b.cart.Plan
	switch {
	case plan.DurationMonths == 3:
		cart.RegionMode = "radio"
		last := ""
		for _, code := range b.codes {
			if e, _ := b.cat.Entry(code); e != nil && e.IsRegion() {
				last = code
			}
		}
		if last == "" {
			break
		}
		keep := "included_" + strings.TrimPrefix(strings.TrimPrefix(last, "add_"), "included_")
		if _, ok := b.cat.Entry(keep); !ok {
			keep = last
		}
		b.remove(false, func(e *domain.Entry) string {
			if e.IsRegion() && e.Code != keep {
				return fmt.Sprintf("the %s includes one region", plan.Title)
			}
			return ""
		})
		if !slices.Contains(b.codes, keep) {
			b.codes = append(b.codes, keep)
			b.adjust(keep, "added", "the %s includes one region", plan.Title)
		}
	case plan.NoRegionSelection:
		cart.RegionMode = "none"
		b.remove(false, func(e *domain.Entry) string {
			if e.IsRegion() {
				return fmt.Sprintf("%s is not available for region selection", plan.Title)
			}
			return ""
		})
		return
	default:
		// One included region; a second included one is charged as an added region, and an
		// added region that is also the included one is dropped.
		included := ""
		for i, code := range b.codes {
			e, _ := b.cat.Entry(code)
			if e == nil || !e.IsIncludedRegion() {
				continue
			}
			if included == "" {
				included = code
				continue
			}
			paid := "add_" + strings.TrimPrefix(code, "included_")
			if _, ok := b.cat.Entry(paid); ok {
				b.codes[i] = paid
				b.adjust(paid, "replaced", "each plan includes one region; %s is charged as an added region", e.Title)
			}
		}
		if included == "" {
			included = b.includeAddedRegion()
		}
		if included != "" {
			dup := "add_" + strings.TrimPrefix(included, "included_")
			b.remove(false, func(e *domain.Entry) string {
				if e.Code == dup {
					return fmt.Sprintf("%s is already included with the plan", e.Title)
				}
				return ""
			})
		}
		b.codes = dedupe(b.codes)
	}
	b.defaultRegion()
}

// defaultRegion gives a cart named without a region (/pricing's "Buy" links,
// /buy?addOns=performance) the currency's default region, as the start plan has (spec 000
// §4, §9): the buyer used to find out only at Pay that the cart could not be bought.
func (b *builder) defaultRegion() {
	for _, code := range b.codes {
		if e, _ := b.cat.Entry(code); e != nil && e.IsRegion() {
			return
		}
	}
	if def, ok := b.cat.Entry(b.cart.Currency.DefaultRegion); ok && def.IsIncludedRegion() {
		b.add(def.Code, fmt.Sprintf("%s includes one region: %s", b.cart.Plan.Title, strings.TrimSpace(strings.TrimSuffix(def.Title, "(included)"))))
		return
	}
	b.cart.Errors = append(b.cart.Errors, MsgNoRegion)
}

// includeAddedRegion makes the first added region of a cart without an included one the
// plan's included region (spec 000 §1: every plan includes one region, so Premium with
// only add_geo_eu is not charged $100 for it) and answers it, or "".
func (b *builder) includeAddedRegion() string {
	for i, code := range b.codes {
		e, _ := b.cat.Entry(code)
		if e == nil || !e.IsRegion() || !strings.HasPrefix(code, "add_") {
			continue
		}
		if inc, ok := b.cat.Entry("included_" + strings.TrimPrefix(code, "add_")); ok {
			b.codes[i] = inc.Code
			b.adjust(inc.Code, "replaced", "each plan includes one region; %s is the one included with the %s", inc.Title, b.cart.Plan.Title)
			return inc.Code
		}
	}
	return ""
}

// applyBusinessPairs keeps each 'purchased vs not purchased' pair complete: a business cart
// without a dispatch (or runway) feature carries the hidden 'not purchased' entry.
func (b *builder) applyBusinessPairs() {
	if !b.cart.Business {
		return
	}
	for _, pair := range []struct {
		groups []string
		none   string
	}{
		{[]string{"dispatch"}, "dispatch_not_purchased"},
		{[]string{"runway", "runway_analysis_ba"}, "runway_not_purchased"},
	} {
		ne, ok := b.cat.Entry(pair.none)
		if !ok || !slices.Contains(ne.ForPlans, b.cart.Plan.Code) {
			continue
		}
		has := false
		for _, code := range b.codes {
			if e, _ := b.cat.Entry(code); e != nil && code != pair.none && slices.Contains(pair.groups, e.FeatureGroup) {
				has = true
			}
		}
		if !has && !slices.Contains(b.codes, pair.none) {
			b.codes = append(b.codes, pair.none)
		}
	}
}

// applyComplimentary: a complimentary Premium or Business Performance cart with both the
// Canada/Alaska and the Africa coverage keeps only those two chart coverages.
func (b *builder) applyComplimentary() {
	c := b.cart
	if c.PaymentMethod != domain.PaymentComplimentary || (c.Plan.Code != "performance" && c.Plan.Code != "business_performance") {
		return
	}
	region := func(name string) bool {
		for _, code := range b.codes {
			if e, _ := b.cat.Entry(code); e != nil && e.IsChart() && e.Chart.Region == name {
				return true
			}
		}
		return false
	}
	if !region("Canada/Alaska") || !region("Africa") {
		return
	}
	b.remove(false, func(e *domain.Entry) string {
		if e.IsChart() && e.Chart.Region != "Canada/Alaska" && e.Chart.Region != "Africa" {
			return "complimentary subscriptions with Canada/Alaska and Africa coverage include no other chart coverage"
		}
		return ""
	})
}

// checkSelections reports what the buyer still has to choose or cannot buy.
func (b *builder) checkSelections() {
	c := b.cart
	if c.Bundle {
		n := 0
		for _, code := range b.codes {
			if e, _ := b.cat.Entry(code); e != nil && e.RunwayKind == "bundle" {
				n++
			}
		}
		if n != 1 {
			c.SelectionErrors = append(c.SelectionErrors, MsgSelectHondaJet)
		}
	}
	for _, code := range b.codes {
		e, _ := b.cat.Entry(code)
		if e == nil {
			continue
		}
		if _, ok := e.Prices[c.Currency.Code]; !ok {
			c.Errors = append(c.Errors, MsgUnavailableIn(e.Title, c.Currency))
			continue
		}
		// Runway analysis is sold in AUD only for the listed aircraft models.
		if c.Currency.Code == "AUD" && (e.RunwayKind == "jet" || e.RunwayKind == "turboprop") && !b.cat.RunwaySoldInAUD(code) {
			c.Errors = append(c.Errors, MsgUnavailableIn(e.Title, c.Currency))
		}
	}
}

func hasAny(list, want []string) bool {
	for _, w := range want {
		if slices.Contains(list, w) {
			return true
		}
	}
	return false
}

func dedupe(codes []string) []string {
	out := make([]string, 0, len(codes))
	for _, c := range codes {
		c = strings.TrimSpace(c)
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// cleanCodes trims codes, ignores empty ones and the page's placeholder pattern ('{code}',
// 'CODE', '<code>'). Duplicates stay: pricing answers 'Code already used.' for them.
func cleanCodes(codes []string) []string {
	var out []string
	for _, c := range codes {
		c = strings.TrimSpace(c)
		if c == "" || strings.HasPrefix(c, "{") || strings.HasPrefix(c, "<") || strings.EqualFold(c, "code") {
			continue
		}
		out = append(out, c)
	}
	return out
}
