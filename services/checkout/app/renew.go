package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/money"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Renew is the operator command `checkout renew [-as-of 2026-12-01] [-window 168h]
// [-dry-run]`: runs (or, with -dry-run, lists with amounts) the renewal pass as of a date
// against DATABASE_URL, pricing with the catalogue from CATALOG_ADDR and charging through
// PAYMENTS_ADDR. The pass's events go to the outbox; a running checkout publishes them.
func Renew(ctx context.Context, cfg Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("renew", flag.ContinueOnError)
	fs.SetOutput(out)
	asOf := fs.String("as-of", "", "the pass's date and time (2006-01-02 or RFC 3339; default now)")
	window := fs.Duration("window", 7*24*time.Hour, "renew terms ending before as-of + window")
	dry := fs.Bool("dry-run", false, "list what would renew, with amounts; charge and write nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Now().UTC()
	if *asOf != "" {
		t, err := time.Parse("2006-01-02", *asOf)
		if err != nil {
			if t, err = time.Parse(time.RFC3339, *asOf); err != nil {
				return fmt.Errorf("-as-of: want 2006-01-02 or RFC 3339: %w", err)
			}
		}
		now = t.UTC()
	}
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		return err
	}
	tp, prop := noop.NewTracerProvider(), propagation.TraceContext{}
	catConn, err := kitclient.Dial(cfg.CatalogAddr, adapters.CatalogKit(nil), tp, prop)
	if err != nil {
		return err
	}
	defer catConn.Close()
	payConn, err := kitclient.Dial(cfg.PaymentsAddr, adapters.PaymentsKit(nil), tp, prop)
	if err != nil {
		return err
	}
	defer payConn.Close()
	// -as-of selects and prices the pass (the service's clock); it never times a lease: the
	// claims' leases run on the database's clock, as the running service's, so that its
	// reconciler and workers see this pass's claims held while it lives (with a frozen
	// clock they were stale at once, or held for a year) and take them over when it dies.
	clock := func() time.Time { return now }
	store := adapters.NewStore(pool)
	orders := order.NewPipeline(adapters.NewOrderStore(pool, prop), adapters.NewPaymentsClient(payConn), log, order.Options{Lease: cfg.SubmitLease})
	svc := iapp.New(store, adapters.NewCatalogClient(catConn), log, iapp.Options{Now: clock, QuoteKey: []byte(cfg.QuoteKey),
		Rules: rules.Rules{SalesContact: cfg.SalesContact}, Orders: orders, Subs: store})
	orders.Register(order.KindSubscription, iapp.SubscriptionFulfiller{Catalog: svc.Catalog})
	if ok, err := svc.RefreshCatalog(ctx); !ok {
		return fmt.Errorf("load the catalogue from %s: %w", cfg.CatalogAddr, err)
	}
	if err := svc.RefreshPromotions(ctx); err != nil {
		return err
	}
	r := iapp.NewRenewer(svc, adapters.NewRenewals(pool, prop), log, iapp.RenewalOptions{Window: *window, Reader: store})
	if *dry {
		due, err := r.DryRun(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "as of %s, terms ending before %s: %d\n", now.Format(time.RFC3339), now.Add(*window).Format(time.RFC3339), len(due))
		totals := map[string]int64{}
		for _, d := range due {
			what := "renew"
			if !d.AutoRenew {
				what = "ends (auto-renew off)"
			}
			fmt.Fprintf(out, "%s  %s  %-28s %-20s attempt %d  %s %s  %s\n", d.TermEnd.Format("2006-01-02"), d.SubscriptionID, d.Email,
				d.PlanCode, d.Attempt, d.Currency, money.Decimal(d.TotalInCents), what)
			totals[d.Currency] += d.TotalInCents
		}
		for cur, v := range totals {
			fmt.Fprintf(out, "total %s %s\n", cur, money.Decimal(v))
		}
		return nil
	}
	res, err := r.Run(ctx)
	fmt.Fprintf(out, "as of %s: due %d, renewed %d, declined %d, lapsed %d, auto-renew off %d, failed %d\n", now.Format(time.RFC3339),
		res.Due, res.Renewed, res.Declined, res.Lapsed, res.Ending, res.Failed)
	for _, sk := range res.Skipped {
		fmt.Fprintf(out, "skipped %d (%s) until %s\n", sk.Count, sk.Reason, sk.Next.UTC().Format(time.RFC3339))
	}
	return err
}
