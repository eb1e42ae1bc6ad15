package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// isPlusPlan reports whether a plan is of the current ("Plus") generation: sold, not
// military, and not an upsell plan that has a Plus successor (the bring-your-own-panel and
// legacy plans).
func isPlusPlan(e *domain.Entry) bool {
	return e.IsPlan() && e.PlanType != "military" && !e.Military && e.ReplacedBy == "" && !e.Deprecated
}

// applyUpsell: selecting chart-provider charts on an upsell plan (a plan still sold that has
// a Plus successor, e.g. bring-your-own-panel Basic and Pro) switches the plan to its Plus
// plan, since those charts are sold only with a Plus plan (spec 000 §4, §6).
func (b *builder) applyUpsell() {
	c, plan := b.cart, b.cart.Plan
	if c.Military || c.ChartsDisabled || plan.ReplacedBy == "" {
		return
	}
	to := plan.ReplacedBy
	if c.Business {
		to = plan.BusinessReplaced
	}
	te, ok := b.cat.Entry(to)
	if !ok || !isPlusPlan(te) {
		return
	}
	wants := slices.ContainsFunc(b.codes, func(code string) bool {
		e, _ := b.cat.Entry(code)
		return e != nil && e.IsChart() && !e.MilitaryIntl
	})
	if !wants {
		return
	}
	b.setPlan(to, fmt.Sprintf("chart-provider charts are sold with a Plus plan: %s switched to %s", plan.Title, te.Title))
	c.Plan = te
	c.Business = te.PlanType == "business"
}

// keepAllocated applies what allocations fix: products allocated to users cannot be
// toggled here and stay; while licences are allocated to users the regions follow the
// subscription (the region checkboxes are disabled); and tail allocations the buyer chose
// to keep keep their add-ons.
func (b *builder) keepAllocated(in domain.Input) {
	c, ex := b.cart, b.cart.Existing
	if ex == nil || !ex.Valid {
		return
	}
	for _, code := range ex.AllocatedAddOns {
		e, ok := b.cat.Entry(code)
		if !ok || e.IsPlan() || in.BusinessDowngrade {
			// A business downgrade ends the organization's licences: one individual plan
			// (spec 000 §4), nothing kept for its users.
			continue
		}
		c.LockedAddOns = append(c.LockedAddOns, code)
		if !slices.Contains(b.codes, code) {
			b.codes = append(b.codes, code)
			b.tell(code, "added", MsgAllocatedProduct(e.Title))
		}
	}
	if ex.UserAllocation() && !in.BusinessDowngrade {
		c.RegionsDisabled = true
		var want []string
		for _, code := range ex.AddOns {
			if e, ok := b.cat.Entry(code); ok && e.IsRegion() {
				want = append(want, code)
			}
		}
		b.remove(true, func(e *domain.Entry) string {
			if e.IsRegion() && !slices.Contains(want, e.Code) {
				return MsgRegionsAllocated
			}
			return ""
		})
		for _, code := range want {
			if !slices.Contains(b.codes, code) {
				b.codes = append(b.codes, code)
				b.tell(code, "added", MsgRegionsAllocated)
			}
		}
	}
	if in.KeepExpiredAllocations {
		for _, a := range ex.Allocations {
			for _, code := range a.AddOnCodes {
				if _, ok := b.cat.Entry(code); ok && !slices.Contains(b.codes, code) {
					b.codes = append(b.codes, code)
					b.adjust(code, "added", "kept for its allocation to %s %s", strings.ToLower(a.TargetType), a.TargetID)
				}
			}
		}
	}
}

// checkAllocated reports allocated products the other rules still removed, and lists the
// tail allocations whose add-ons the cart drops (validate asks the buyer about them).
func (b *builder) checkAllocated(domain.Input) {
	c := b.cart
	for _, code := range c.LockedAddOns {
		if !slices.Contains(b.codes, code) {
			c.Errors = append(c.Errors, MsgAllocatedProduct(b.title(code)))
			if !slices.Contains(c.ErrorCodes, CodeAllocatedProduct) {
				c.ErrorCodes = append(c.ErrorCodes, CodeAllocatedProduct)
			}
		}
	}
	if c.Existing == nil || !c.Existing.Valid {
		return
	}
	for _, a := range c.Existing.Allocations {
		if slices.ContainsFunc(a.AddOnCodes, func(code string) bool { return !slices.Contains(b.codes, code) }) {
			c.ExpiringAllocations = append(c.ExpiringAllocations, a)
		}
	}
	// A pool licensed to users, kept but lowered below the users who hold it: the allocation
	// service expires the newest of their assignments, so the buyer is asked as for aircraft.
	// (A dropped user-allocated add-on is locked above instead.)
	for _, p := range c.Existing.UserPools {
		if slices.Contains(b.codes, p.Code) && p.Assigned > c.Quantity {
			c.ExpiringAllocations = append(c.ExpiringAllocations, domain.Allocation{AddOnCodes: []string{p.Code},
				TargetID: p.Owner, TargetOwnerID: p.Owner, TargetType: TargetUsers, Assigned: p.Assigned})
		}
	}
}

// bundleAircraft answers the aircraft model of a jet-maker bundle option: option
// honda_jet_bundle_{x} covers aircraft hondajet_{x} (the catalogue's naming).
func bundleAircraft(option string) string {
	return "hondajet_" + strings.TrimPrefix(option, domain.BundlePlan+"_")
}

// checkRunwayAircraft: runway analysis covers only aircraft of the purchased model (the
// package of the model, or the bundle's chosen model), and in AUD only the listed
// AUD-priced models are sold: 'Unavailable in {symbol}{currency}' (spec 000 §5).
func (b *builder) checkRunwayAircraft(models []string) {
	c := b.cart
	bundleModel := ""
	for _, code := range b.codes {
		if e, _ := b.cat.Entry(code); e != nil && e.RunwayKind == "bundle" {
			bundleModel = bundleAircraft(code)
			if a, ok := b.cat.Aircraft(bundleModel); ok && c.Currency.Code == "AUD" && !a.AUDPriced {
				c.Errors = append(c.Errors, MsgUnavailableIn(e.Title, c.Currency))
			}
		}
	}
	for _, m := range dedupe(models) {
		a, ok := b.cat.Aircraft(m)
		if !ok {
			c.Errors = append(c.Errors, fmt.Sprintf("Unknown aircraft model %q.", m))
			continue
		}
		c.RunwayAircraft = append(c.RunwayAircraft, a.Code)
		if !slices.Contains(b.codes, a.AddOnCode) && !(c.Bundle && a.Code == bundleModel) {
			c.Errors = append(c.Errors, MsgRunwayNotCovered(a.Model))
			continue
		}
		if c.Currency.Code == "AUD" && !a.AUDPriced {
			c.Errors = append(c.Errors, MsgUnavailableIn(a.Model, c.Currency))
		}
	}
}

// allocationsAcknowledged reports whether every expiring allocation was shown to the
// buyer (echoed back in expiredAllocations).
func allocationsAcknowledged(expiring, echoed []domain.Allocation) bool {
	for _, a := range expiring {
		if !slices.ContainsFunc(echoed, func(x domain.Allocation) bool {
			return x.TargetID == a.TargetID && strings.EqualFold(x.TargetType, a.TargetType) &&
				(a.TargetType != TargetUsers || slices.Equal(x.AddOnCodes, a.AddOnCodes))
		}) {
			return false
		}
	}
	return true
}
