package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
)

func TestStore(t *testing.T) {
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
		if err := adapters.Seed(ctx, s, now); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("subscription by id, account and e-mail", func(t *testing.T) {
		sub, err := s.Subscription(ctx, adapters.SeedSubscriptionID(adapters.SeedPilot))
		if err != nil || sub == nil || sub.PlanCode != "performance" || len(sub.AddOns) != 3 || sub.PriceInCents != 47000 {
			t.Fatalf("%+v %v", sub, err)
		}
		if days := sub.TermEnd.Sub(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)).Hours() / 24; days != 143 {
			t.Errorf("days left %v", days)
		}
		child, _ := s.SubscriptionOf(ctx, adapters.SeedChild, "")
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
		sub, _ := s.SubscriptionOf(ctx, adapters.SeedPilot, "")
		a, err := s.Account(ctx, adapters.SeedPilot, sub)
		if err != nil || a.FirstTime || a.BalanceInCents != 2500 || a.BalanceCurrency != "USD" || len(a.UsedCodes) != 1 || a.UsedCodes[0] != "WELCOME5" {
			t.Errorf("%+v %v", a, err)
		}
	})
	t.Run("promotions with redemption counts", func(t *testing.T) {
		p, err := s.Promotions(ctx)
		if err != nil || len(p) != len(adapters.DevPromotions()) {
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
}
