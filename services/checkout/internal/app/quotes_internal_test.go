package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// noStore is a Store with no subscriptions, accounts, promotions or gift certificates:
// the state of a new buyer's purchase.
type noStore struct{}

func (noStore) Subscription(context.Context, string) (*domain.Subscription, error) { return nil, nil }
func (noStore) SubscriptionOf(context.Context, string, string) (*domain.Subscription, error) {
	return nil, nil
}
func (noStore) Account(context.Context, string, *domain.Subscription) (domain.Account, error) {
	return domain.Account{}, errors.New("no account may be read for a new buyer")
}
func (noStore) Promotions(context.Context) (map[string]*promotion.Promotion, error) { return nil, nil }
func (noStore) PromotionUses(context.Context, []string) (map[string]int, error)     { return nil, nil }
func (noStore) Gifts(context.Context, []string) (map[string]*promotion.GiftCertificate, error) {
	return nil, nil
}
func (noStore) Count(context.Context, []string, ratelimit.Rule, int, time.Time) (bool, time.Duration, error) {
	return true, 0, nil
}

// countingRegister is the VAT register, counting its look-ups: a look-up is made by
// pricing a cart with an EU VAT id, so it tells whether submit priced again.
type countingRegister struct{ asked atomic.Int64 }

func (r *countingRegister) Registered(context.Context, string, string) (bool, error) {
	r.asked.Add(1)
	return true, nil
}

// newAccounts creates every e-mail's account.
type newAccounts struct{}

func (newAccounts) ProvisionAccount(context.Context, string, bool) (string, bool, error) {
	return "3f1c2a52-0000-4000-8000-000000000001", true, nil
}

type quoteEnv struct {
	svc *Service
	reg *countingRegister
	now time.Time
}

func newQuoteEnv(t *testing.T) *quoteEnv {
	t.Helper()
	e := &quoteEnv{reg: &countingRegister{}, now: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)}
	e.svc = New(noStore{}, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{
		Now: func() time.Time { return e.now }, QuoteKey: []byte("test-quote-key"), Accounts: newAccounts{}, VATRegistry: e.reg,
	})
	e.svc.SetCatalog(domaintest.MustCatalog(t))
	return e
}

// germanBusiness is a new buyer's cart whose pricing asks the VAT register.
func germanBusiness() domain.Input {
	return domain.Input{Email: "quote@buyer.test", Currency: "EUR", AddOns: []string{"performance", "included_geo_eu"},
		Country: "DE", Zip: "10115", BusinessID: "DE123456789", OrganizationName: "Quote GmbH", GdprCompliant: true,
		EuCustomer: true, CardholderName: "Ada Lovelace"}
}

var anonymous = Caller{Client: "addr:203.0.113.7", Addr: "203.0.113.7"}

func (e *quoteEnv) preview(t *testing.T, in domain.Input, caller Caller) *pricing.Preview {
	t.Helper()
	// The buy page's preview carries no payment fields, and its cart id and counter, which
	// its submit does not.
	in.CardholderName, in.CartID, in.Counter = "", "cart-1", 3
	pv, err := e.svc.Preview(context.Background(), in, caller)
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Invoice.Errors) > 0 || pv.Invoice.TotalInCents <= 0 {
		t.Fatalf("preview: %v, total %d", pv.Invoice.Errors, pv.Invoice.TotalInCents)
	}
	return pv
}

func (e *quoteEnv) submit(in domain.Input, quoteID string, caller Caller) (*order.Purchase, error) {
	return e.svc.priceForSubmit(context.Background(), in, Submit{Key: "k", QuoteID: quoteID, Payment: order.Payment{Nonce: "nonce"}}, caller)
}

// A submit of the quote this process issued for the same cart and caller uses the quoted
// lines and totals: it does not price again (no second VAT register look-up).
func TestSubmitUsesTheQuotedPrice(t *testing.T) {
	t.Parallel()
	e := newQuoteEnv(t)
	pv := e.preview(t, germanBusiness(), anonymous)
	if n := e.reg.asked.Load(); n != 1 {
		t.Fatalf("the preview asked the VAT register %d times, want 1", n)
	}
	pu, err := e.submit(germanBusiness(), pv.QuoteID, anonymous)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.reg.asked.Load(); n != 1 {
		t.Errorf("submit priced again: the VAT register was asked %d times in all, want the preview's 1", n)
	}
	if pu.TotalInCents != pv.Invoice.TotalInCents || len(pu.Lines) != len(pv.Invoice.Lines) || !pu.ReverseCharge {
		t.Errorf("purchase total %d, %d lines, reverse charge %v; quoted %d, %d lines", pu.TotalInCents, len(pu.Lines), pu.ReverseCharge,
			pv.Invoice.TotalInCents, len(pv.Invoice.Lines))
	}
	// The kept quote is not changed by the submit that used it: a second submit of it (the
	// first refused by payments, say) gets the same price.
	if pu2, err := e.submit(germanBusiness(), pv.QuoteID, anonymous); err != nil || pu2.TotalInCents != pv.Invoice.TotalInCents {
		t.Errorf("second submit of the quote: %v, %v", pu2, err)
	}
}

// A quote that does not prove the price is never trusted: it is priced again (the VAT
// register asked again), and refused when the price it names is not today's.
func TestSubmitPricesAgainWhatTheQuoteCannotProve(t *testing.T) {
	t.Parallel()
	repriced := func(t *testing.T, e *quoteEnv) {
		t.Helper()
		if n := e.reg.asked.Load(); n != 2 {
			t.Errorf("the VAT register was asked %d times in all, want 2: submit must price again", n)
		}
	}
	refused := func(t *testing.T, err error) {
		t.Helper()
		var se *SubmitError
		if !errors.As(err, &se) || se.Reason != ReasonQuoteChanged || se.Code != errs.Conflict {
			t.Errorf("submit: %v, want the refusal %s", err, ReasonQuoteChanged)
		}
	}
	t.Run("tampered signature", func(t *testing.T) {
		t.Parallel()
		e := newQuoteEnv(t)
		pv := e.preview(t, germanBusiness(), anonymous)
		id := pv.QuoteID[:len(pv.QuoteID)-1] + map[bool]string{true: "0", false: "1"}[strings.HasSuffix(pv.QuoteID, "1")]
		_, err := e.submit(germanBusiness(), id, anonymous)
		repriced(t, e)
		refused(t, err)
	})
	t.Run("another cart under the quote", func(t *testing.T) {
		t.Parallel()
		e := newQuoteEnv(t)
		pv := e.preview(t, germanBusiness(), anonymous)
		more := germanBusiness()
		more.AddOns = append(more.AddOns, "add_geo_us")
		_, err := e.submit(more, pv.QuoteID, anonymous)
		repriced(t, e)
		refused(t, err)
	})
	t.Run("another caller's quote", func(t *testing.T) {
		t.Parallel()
		e := newQuoteEnv(t)
		pv := e.preview(t, germanBusiness(), anonymous)
		other := Caller{Client: "addr:198.51.100.9", Addr: "198.51.100.9"}
		// Priced for the other caller; the same cart has the same price, so it is bought at
		// that price, never at the first caller's because it was theirs.
		if _, err := e.submit(germanBusiness(), pv.QuoteID, other); err != nil {
			t.Fatal(err)
		}
		repriced(t, e)
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		e := newQuoteEnv(t)
		pv := e.preview(t, germanBusiness(), anonymous)
		e.now = e.now.Add(pricing.QuoteTTL)
		_, err := e.submit(germanBusiness(), pv.QuoteID, anonymous)
		repriced(t, e)
		refused(t, err)
	})
	t.Run("the catalogue changed the price", func(t *testing.T) {
		t.Parallel()
		e := newQuoteEnv(t)
		pv := e.preview(t, germanBusiness(), anonymous)
		d, err := domaintest.CatalogData()
		if err != nil {
			t.Fatal(err)
		}
		d.Version += "-dearer"
		for i := range d.Entries {
			if d.Entries[i].Code == "performance" {
				p := d.Entries[i].Prices["EUR"]
				p.AmountInCents += 1000
				d.Entries[i].Prices["EUR"] = p
			}
		}
		cat, err := domain.NewCatalog(d)
		if err != nil {
			t.Fatal(err)
		}
		e.svc.SetCatalog(cat)
		_, err = e.submit(germanBusiness(), pv.QuoteID, anonymous)
		repriced(t, e)
		refused(t, err)
	})
}

// A logged-in buyer's preview read their account (its balance): submit prices it again.
func TestQuoteOfAnAccountIsNotKept(t *testing.T) {
	t.Parallel()
	in := germanBusiness()
	pv := &pricing.Preview{Cart: &domain.Cart{}, QuoteID: "q"}
	if !selfContained(in, pv) {
		t.Fatal("a new buyer's preview without codes is self-contained")
	}
	in.Caller = domain.Caller{LoggedIn: true, AccountID: "acct-pilot", Email: "pilot@example.com"}
	if selfContained(in, pv) {
		t.Error("a logged-in buyer's preview was kept for submit")
	}
	in = germanBusiness()
	in.PromoCodes = []string{"SPRING"}
	pv.Cart.PromoCodes = in.PromoCodes
	if selfContained(in, pv) {
		t.Error("a preview with a promotion code was kept for submit")
	}
}
