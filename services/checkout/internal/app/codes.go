package app

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

// MaxCodes is the most promo codes, and the most gift certificate codes, one request
// carries: a buyer enters one or two; a list of thousands is a guesser's.
const MaxCodes = 5

// checkCodeCounts refuses a request with more than MaxCodes promo or gift codes (blank
// entries aside), naming the field.
func checkCodeCounts(promo, gift []string) error {
	for _, f := range []struct {
		field, words string
		codes        []string
	}{{"discountPromoCode", "promo codes", promo}, {"giftCertificateCode", "gift certificate codes", gift}} {
		n := 0
		for _, c := range f.codes {
			if strings.TrimSpace(c) != "" {
				n++
			}
		}
		if n > MaxCodes {
			return errs.Field(f.field, fmt.Sprintf("At most %d %s (%s) can be entered at once; this request has %d.", MaxCodes, f.words, f.field, n))
		}
	}
	return nil
}

// Accepted remembers, per client and cart, the codes pricing accepted, so that pricing the
// same cart again (every change of the form re-prices it) does not count them as code
// attempts: a code counts when it is first tried in a cart, or tried again after it was
// refused. Kept in the process and bounded (two generations): a cart re-priced on another
// replica, or forgotten, counts its codes once more there, never less.
type Accepted struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]map[string]bool
}

// NewAccepted keeps up to max carts per generation.
func NewAccepted(max int) *Accepted {
	return &Accepted{max: max, cur: map[string]map[string]bool{}, old: map[string]map[string]bool{}}
}

// Fresh answers how many of codes the cart has not had accepted.
func (a *Accepted) Fresh(cart string, codes []string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range codes {
		if !a.cur[cart][c] && !a.old[cart][c] {
			n++
		}
	}
	return n
}

// Accept records codes as accepted in the cart.
func (a *Accepted) Accept(cart string, codes []string) {
	if len(codes) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	set := a.cur[cart]
	if set == nil {
		if len(a.cur) >= a.max {
			a.old, a.cur = a.cur, map[string]map[string]bool{}
		}
		set = map[string]bool{}
		for c := range a.old[cart] {
			set[c] = true
		}
		a.cur[cart] = set
	}
	for _, c := range codes {
		set[c] = true
	}
}

// codeKeys are a cart's codes as Accepted keeps them: kind and lower-case code.
func codeKeys(promo, gift []string) []string {
	var out []string
	for _, c := range promo {
		out = append(out, "p:"+strings.ToLower(c))
	}
	for _, c := range gift {
		out = append(out, "g:"+strings.ToLower(c))
	}
	return out
}

// acceptedKeys are the keys of the codes pricing did not refuse.
func acceptedKeys(promo, gift []string, refused []promotion.CodeError) []string {
	no := map[string]bool{}
	for _, ce := range refused {
		no[strings.ToLower(ce.Code)] = true
	}
	keep := func(list []string) []string {
		var out []string
		for _, c := range list {
			if !no[strings.ToLower(c)] {
				out = append(out, c)
			}
		}
		return out
	}
	return codeKeys(keep(promo), keep(gift))
}

// cartKey names a cart for Accepted: the client address and the page's cart id (else the
// buyer's account or e-mail).
func cartKey(client, cartID, account, email string) string {
	return client + "\x00" + firstNonEmpty(cartID, account, strings.ToLower(email))
}

// countCodes counts the codes of a cart not yet accepted in it as attempts of the client
// and the buyer (Limiter), 429 over the limit.
func (s *Service) countCodes(ctx context.Context, client, cart, buyer string, codes []string) error {
	if len(codes) == 0 || client == unlimited {
		return nil
	}
	return s.limiter.AllowN(ctx, client, buyer, s.accepted.Fresh(cart, codes))
}

// remember records the codes a price accepted in the cart.
func (s *Service) remember(client, cart string, keys []string) {
	if client != unlimited {
		s.accepted.Accept(cart, keys)
	}
}

// inputCodes checks the code counts of a configuration as sent.
func inputCodes(in domain.Input) error { return checkCodeCounts(in.PromoCodes, in.GiftCodes) }
