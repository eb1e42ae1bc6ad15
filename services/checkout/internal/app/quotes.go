package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// quotesKept is how many quoted previews a process keeps for submit (about 2–4 KiB each):
// at the journey's 200 orders/s that is the last 20 s of previews at least, and a quote
// that fell out is priced again, never trusted.
const quotesKept = 4096

// quoted is a preview as submit may reuse it: the lines and totals priced, the
// catalogue and tax table they were priced from, and the fingerprint of the request and
// the caller that asked.
type quoted struct {
	pv          *pricing.Preview
	fingerprint string
	catalog     string
	taxes       string
	day         time.Time
}

// Quotes are the previews this process priced, by quote id, that depend on nothing a
// submit must read again: no subscription (its terms and the licences its users hold), no
// account (its balance), no promotion or gift code (their limits and balances). Two
// generations bound it (the older dropped when the newer fills), as Accepted.
type Quotes struct {
	mu       sync.Mutex
	max      int
	cur, old map[string]quoted
}

// NewQuotes keeps up to max quotes per generation.
func NewQuotes(max int) *Quotes {
	return &Quotes{max: max, cur: map[string]quoted{}, old: map[string]quoted{}}
}

func (q *Quotes) put(id string, e quoted) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.cur) >= q.max {
		q.old, q.cur = q.cur, map[string]quoted{}
	}
	q.cur[id] = e
}

func (q *Quotes) get(id string) (quoted, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.cur[id]; ok {
		return e, true
	}
	e, ok := q.old[id]
	return e, ok
}

// quoteFingerprint identifies what shapes a price and who asked: the configuration as
// sent (less what only submit carries or only validation reads: the card holder, the
// human verification, the preview counter and cart id, which the buy page sends with its
// previews only and which key code attempts, the ticked consents) with the session's
// caller, and the client's key (the session or the address). A submit with any other
// configuration, or from another caller, does not match the quote's and is priced again.
func quoteFingerprint(in domain.Input, caller Caller) string {
	in.CardholderName, in.RecaptchaValue, in.Counter, in.CartID = "", "", 0, ""
	in.MarketingConsent, in.EulaChecked, in.LicenseChecked, in.GdprCompliant = false, false, false, false
	b, err := json.Marshal(struct {
		In     domain.Input
		Client string
	}{in, caller.Client})
	if err != nil {
		return "" // never matches: a fingerprint is never empty
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// selfContained reports whether a preview of in depends on nothing but the request, the
// catalogue and the tax table: no account or subscription was read, and no code.
func selfContained(in domain.Input, pv *pricing.Preview) bool {
	accountID, sessionEmail := who(in)
	c := pv.Cart
	return accountID == "" && sessionEmail == "" && !in.Caller.LoggedIn && noneNamed(in.SubscriptionID) && c.Existing == nil && !c.Managed &&
		len(c.PromoCodes) == 0 && len(c.GiftCodes) == 0 && pv.Invoice.AccountBalanceInCents == 0 && pv.Invoice.GiftCreditInCents == 0 &&
		!slices.Contains(c.ErrorCodes, CodeAllocationsUnavailable)
}

// noneNamed reports an empty or unusable account or subscription reference.
func noneNamed(s string) bool { return domain.ExtractAccountID(s) == "" }

// rememberQuote keeps a self-contained preview for the submit of its quote.
func (s *Service) rememberQuote(in domain.Input, caller Caller, pv *pricing.Preview) {
	if s.quotes == nil || pv.QuoteID == "" || !selfContained(in, pv) {
		return
	}
	s.quotes.put(pv.QuoteID, quoted{pv: pv, fingerprint: quoteFingerprint(in, caller), catalog: pv.CatalogVer,
		taxes: tax.Rates().Version, day: s.now().UTC().Truncate(24 * time.Hour)})
}

// quotedPreview answers the preview the quote id was issued for, when a submit may use its
// lines and totals without pricing again: this process priced it, for this very
// configuration and caller, from the catalogue and tax table in use now, on the same day
// (terms start today), the quote has not expired, and its signature is this key's. Any
// other quote (tampered, expired, another caller's or cart's, priced from an older
// catalogue, or another replica's) answers false and is priced again.
func (s *Service) quotedPreview(quoteID string, in domain.Input, caller Caller) (*pricing.Preview, bool) {
	if s.quotes == nil {
		return nil, false
	}
	e, ok := s.quotes.get(quoteID)
	if !ok {
		return nil, false
	}
	cat, err := s.Catalog()
	now := s.now()
	q, parsed := pricing.ParseQuote(quoteID)
	switch {
	case err != nil, !parsed, !now.Before(q.Expires), !now.Before(e.pv.QuoteExpires),
		e.catalog != cat.Version(), e.taxes != tax.Rates().Version, !e.day.Equal(now.UTC().Truncate(24 * time.Hour)),
		!hmac.Equal([]byte(e.fingerprint), []byte(quoteFingerprint(in, caller))),
		!hmac.Equal([]byte(pricing.QuoteID(s.quoteKey, e.pv.QuoteHash, q.Currency, q.Expires)), []byte(quoteID)):
		return nil, false
	}
	return clonePreview(e.pv), true
}

// clonePreview copies what submit's validation appends to or rewrites, so the kept
// preview is never changed by the submit that reuses it.
func clonePreview(pv *pricing.Preview) *pricing.Preview {
	out := *pv
	c := *pv.Cart
	c.ErrorCodes, c.Adjustments, c.Errors = slices.Clone(c.ErrorCodes), slices.Clone(c.Adjustments), slices.Clone(c.Errors)
	c.PlanErrors, c.SelectionErrors = slices.Clone(c.PlanErrors), slices.Clone(c.SelectionErrors)
	c.AddOns, c.ExpiringAllocations = slices.Clone(c.AddOns), slices.Clone(c.ExpiringAllocations)
	out.Cart = &c
	out.Invoice.Lines = slices.Clone(pv.Invoice.Lines)
	out.Invoice.Errors = slices.Clone(pv.Invoice.Errors)
	out.PromoInfo, out.CodeErrors = slices.Clone(pv.PromoInfo), slices.Clone(pv.CodeErrors)
	return &out
}
