package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	s := adapters.NewStore(pool)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for range 2 { // the seed is idempotent
		if err := app.SeedDemo(ctx, s, now, domaintest.MustCatalog(t)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("subscription by id, account and e-mail", func(t *testing.T) {
		sub, err := s.Subscription(ctx, app.SeedSubscriptionID(app.SeedPilot))
		if err != nil || sub == nil || sub.PlanCode != "performance" || len(sub.AddOns) != 3 || sub.PriceInCents != 47000 {
			t.Fatalf("%+v %v", sub, err)
		}
		if days := sub.TermEnd.Sub(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)).Hours() / 24; days != 143 {
			t.Errorf("days left %v", days)
		}
		child, _ := s.SubscriptionOf(ctx, app.SeedChild, "")
		agency, _ := s.SubscriptionOf(ctx, "", "AGENCY@example.com")
		if child == nil || !child.ChildAccount() || agency == nil || !agency.ThirdParty() {
			t.Errorf("child %+v agency %+v", child, agency)
		}
		none, err := s.Subscription(ctx, "10000000-0000-4000-8000-0000000000ff")
		if none != nil || err != nil {
			t.Errorf("%v %v", none, err)
		}
	})
	t.Run("account balance, redemptions and chart coverage", func(t *testing.T) {
		sub, _ := s.SubscriptionOf(ctx, app.SeedPilot, "")
		a, err := s.Account(ctx, app.SeedPilot, sub)
		if err != nil || a.FirstTime || a.BalanceInCents != 2500 || a.BalanceCurrency != "USD" || len(a.UsedCodes) != 1 || a.UsedCodes[0] != "WELCOME5" {
			t.Errorf("%+v %v", a, err)
		}
	})
	t.Run("promotions with redemption counts", func(t *testing.T) {
		p, err := s.Promotions(ctx)
		if err != nil || len(p) != len(app.DevPromotions()) {
			t.Fatalf("%v %v", p, err)
		}
		if w := p["welcome5"]; w == nil || w.Redemptions != 1 || w.PercentBP != 500 {
			t.Errorf("%+v", w)
		}
		if b := p["bundle2020"]; b == nil || !b.AlwaysView || !b.RemoveOnNotice || b.NoticeAudience != "has_chart_coverage" {
			t.Errorf("%+v", b)
		}
		if f := p["save25"]; f == nil || f.Currency != "USD" || f.MinAmountInCents != 30000 {
			t.Errorf("%+v", f)
		}
	})
	t.Run("gift certificates by code in any case", func(t *testing.T) {
		g, err := s.Gifts(ctx, []string{"gift-usd-100", "NOPE"})
		if err != nil || len(g) != 1 || g["gift-usd-100"].BalanceInCents != 10000 {
			t.Errorf("%v %v", g, err)
		}
	})
	// The invoice number has one format, the invoice_number function (migration 0012) the
	// single submit and the batch writer both draw it through.
	t.Run("invoice number format", func(t *testing.T) {
		for seq, want := range map[int64]string{1: "HGR-2026-000001", 42: "HGR-2026-000042", 999999: "HGR-2026-999999", 1234567: "HGR-2026-1234567"} {
			var got string
			if err := pool.QueryRow(ctx, `SELECT invoice_number($1, $2)`, 2026, seq).Scan(&got); err != nil || got != want {
				t.Errorf("invoice_number(2026, %d) = %q, %v; want %q", seq, got, err, want)
			}
		}
	})
	// Each order's close draws the number in its statement: the function is inlined there
	// (migration 0023), not called as a function whose statement is planned at every order.
	t.Run("invoice number inlined into the drawing statement", func(t *testing.T) {
		var plan string
		if err := pool.QueryRow(ctx, `EXPLAIN (VERBOSE, FORMAT JSON) SELECT invoice_number(2026, s) FROM generate_series(1::bigint, 2) s`).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "invoice_number") || !strings.Contains(plan, "lpad") {
			t.Errorf("the plan calls the function instead of its expression: %s", plan)
		}
	})
}

// Two replicas (two pools, two limiters) over one database enforce one code limit, the
// platform's token bucket (3 per minute: 3 at once, one more every 20 s; the numbers moved
// with the algorithm, docs/decisions/0008-one-rate-limiter.md). Attempts while refused
// count, so a guesser that keeps trying stays refused; one that stops is told honestly
// how long to wait, at most a window and one interval.
func TestCodeLimiterAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.New(t)
	var stores []*adapters.Store
	for i := range 2 {
		pool, err := db.Open(ctx, url, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if i == 0 {
			if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
		}
		stores = append(stores, adapters.NewStore(pool))
	}
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	clock := t0
	now := func() time.Time { return clock }
	a := app.NewLimiter(stores[0], 3, time.Minute, now)
	b := app.NewLimiter(stores[1], 3, time.Minute, now)
	var wait time.Duration
	step := func(l *app.Limiter, at time.Duration, client string, want errs.Code) {
		t.Helper()
		clock = t0.Add(at)
		err := l.Allow(ctx, client, "")
		if got := errs.CodeOf(err); err != nil && got != want || err == nil && want != "" {
			t.Fatalf("at %v: %v, want %q", at, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), app.MsgTooManyCodes) {
			t.Fatalf("message %v", err)
		}
		wait = errs.RetryAfterOf(err)
	}
	step(a, 10*time.Second, "10.0.0.1", "")
	step(b, 11*time.Second, "10.0.0.1", "")
	step(a, 12*time.Second, "10.0.0.1", "")
	step(b, 13*time.Second, "10.0.0.1", errs.Exhausted) // the 4th attempt, on the other replica
	step(a, 13*time.Second, "10.0.0.2", "")             // another client is not affected
	for at := 20 * time.Second; at <= 60*time.Second; at += 10 * time.Second {
		step([]*app.Limiter{a, b}[at/(10*time.Second)%2], at, "10.0.0.1", errs.Exhausted) // keeps trying: stays refused
	}
	told := wait
	if told != 80*time.Second {
		t.Errorf("told to wait %s after the last refusal, want a window and one interval (80s)", told)
	}
	step(b, 60*time.Second+told-time.Second, "10.0.0.1", errs.Exhausted) // a second early: refused, and counted
	step(a, 60*time.Second+told+20*time.Second, "10.0.0.1", "")          // the wait told, plus the early try's interval
}
