// Command renewal-bench measures the renewal engine at renewal-season scale (issue 17):
// it creates two throwaway databases (checkout's and payments'), starts payments in
// process with its sandbox processor, seeds N card subscriptions whose terms end within
// one simulated day, and runs the pass as of the end of that day — either in process
// (-mode direct: the operator command's pass, -workers goroutines) or as the service runs
// it (-mode queue: the scheduler records the due terms, -workers renewal workers per
// replica claim them from the renewals table). It prints renewals per second, checkout's
// database transactions and memory, sampled while it runs. Not part of make test; results
// are recorded in docs/performance.md and docs/decisions/0001-renewal-work-queue.md.
//
// With -replicas R (queue mode) the process holds R replicas' schedulers and workers, which
// share the one database as separate checkout processes would.
//
//	go run ./services/checkout/cmd/renewal-bench -n 1000000 -mode queue -workers 8 -limit 10m
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/order"
	payments "github.com/hangar/hangar/services/payments/app"
)

func main() {
	// gRPC logs through slog from the first line on (grpclog reads its logger unlocked).
	server.InstallGRPCLogs()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "renewal-bench:", err)
		os.Exit(1)
	}
}

func run() error {
	n := flag.Int("n", 1_000_000, "subscriptions to seed (terms ending within one simulated day)")
	mode := flag.String("mode", "queue", "direct (in-process pass) or queue (scheduler, renewal workers on the renewals table)")
	workers := flag.Int("workers", 8, "renewal workers (goroutines or consumer-group members), per replica")
	replicas := flag.Int("replicas", 1, "checkout replicas in this process (queue mode): each runs the scheduler and -workers renewal workers")
	limit := flag.Duration("limit", 10*time.Minute, "stop renewing after this long and report what was done")
	server := flag.String("server", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server (throwaway databases are created on it)")
	prefix := flag.String("prefix", "hangar_ren17_bench_", "throwaway database name prefix")
	conns := flag.Int("conns", 24, "checkout pool size")
	asyncCommit := flag.Bool("async-commit", false, "synchronous_commit=off on the throwaway databases (commits do not wait for the WAL flush; measures the engine rather than this machine's shared disk)")
	keep := flag.Bool("keep", false, "keep the databases afterwards")
	reuse := flag.Bool("reuse", false, "reuse seeded databases of an earlier -keep run (no seeding)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the renewal phase here")
	port := flag.Int("port", 18171, "first of the three loopback ports in-process payments listens on (gRPC, HTTP, admin)")
	flag.Parse()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	checkoutURL, paymentsURL := dbURL(*server, *prefix+"checkout"), dbURL(*server, *prefix+"payments")
	if !*reuse {
		for _, name := range []string{*prefix + "checkout", *prefix + "payments"} {
			if err := recreate(ctx, *server, name); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{*prefix + "checkout", *prefix + "payments"} {
		setting := "on"
		if *asyncCommit {
			setting = "off"
		}
		if err := exec(ctx, *server, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" SET synchronous_commit = "+setting); err != nil {
			return err
		}
	}
	if !*keep {
		defer func() {
			for _, name := range []string{*prefix + "checkout", *prefix + "payments"} {
				_ = drop(context.Background(), *server, name)
			}
		}()
	}

	// Payments with its sandbox processor, in process on loopback; its dev seed vaults the
	// pilot's Visa, whose token every seeded subscription renews with.
	var pcfg payments.Config
	if err := config.LoadFrom(&pcfg, lookup(map[string]string{"GRPC_ADDR": addr(*port), "HTTP_ADDR": addr(*port + 1),
		"ADMIN_ADDR": addr(*port + 2), "PAYMENTS_FIELDS_ADDR": addr(*port + 3), "DATABASE_URL": paymentsURL, "LOG_LEVEL": "error", "PAYMENTS_DEV_SEED": "true",
		"DATABASE_MAX_CONNS": "24", "TRUSTED_PROXIES": "0", config.DevModeVar: "true"})); err != nil {
		return err
	}
	pay, err := payments.New(ctx, pcfg, io.Discard)
	if err != nil {
		return err
	}
	if err := pay.Listen(); err != nil {
		return err
	}
	go func() { _ = pay.Run(ctx) }()
	for !pay.Ready() {
		time.Sleep(100 * time.Millisecond)
	}
	payGRPC, _, _ := pay.Addrs()
	ppool, err := pgxpool.New(ctx, paymentsURL)
	if err != nil {
		return err
	}
	var token string
	if err := ppool.QueryRow(ctx, `SELECT method_token FROM billing_profiles WHERE account_id = $1`, payments.DevPilotAccount).Scan(&token); err != nil {
		return fmt.Errorf("the seeded card: %w", err)
	}
	ppool.Close()

	pool, err := db.Open(ctx, checkoutURL, *conns)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		return err
	}
	day := time.Date(2027, 4, 1, 0, 0, 0, 0, time.UTC)
	if !*reuse {
		t0 := time.Now()
		if err := seed(ctx, pool, *n, day, token); err != nil {
			return err
		}
		fmt.Printf("seeded %d subscriptions (terms ending %s..+24h) in %s\n", *n, day.Format("2006-01-02"), time.Since(t0).Round(time.Second))
	}

	// Checkout's renewal engine as of the end of the simulated day: everything is due.
	now := day.Add(24 * time.Hour)
	clock := func() time.Time { return now }
	prop := propagation.TraceContext{}
	payConn, err := kitclient.Dial(payGRPC, adapters.PaymentsKit(nil), noop.NewTracerProvider(), prop)
	if err != nil {
		return err
	}
	defer payConn.Close()
	store := adapters.NewStore(pool)
	orders := order.NewPipeline(adapters.NewOrderStore(pool, prop), adapters.NewPaymentsClient(payConn), log, order.Options{Now: clock})
	svc := iapp.New(store, nil, log, iapp.Options{Now: clock, QuoteKey: []byte("bench"), Orders: orders, Subs: store})
	cat, err := domaintest.Catalog()
	if err != nil {
		return err
	}
	svc.SetCatalog(cat)
	if err := svc.RefreshPromotions(ctx); err != nil {
		return err
	}
	orders.Register(order.KindSubscription, iapp.SubscriptionFulfiller{Catalog: svc.Catalog})
	// The reminders and card notices of this season went out a month earlier.
	ropts := iapp.RenewalOptions{Batch: 20000, ReminderBefore: -1, CardNoticeBefore: -1, Lease: time.Hour, Reader: store}
	renewals := adapters.NewRenewals(pool, prop)
	r := iapp.NewRenewer(svc, renewals, log, ropts)

	mem := sampleMemory(ctx)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	xacts0 := xacts(ctx, pool)
	start := time.Now()
	rctx, rcancel := context.WithTimeout(ctx, *limit)
	defer rcancel()
	var schedDur time.Duration
	switch *mode {
	case "direct":
		var wg sync.WaitGroup
		for range *workers {
			wg.Add(1)
			go func() { defer wg.Done(); _, _ = r.Run(rctx) }()
		}
		wg.Wait()
	case "queue":
		// Every replica: its renewal workers, and its scheduler (the advisory lock lets one
		// record at a time; a replica that finds it held skips that tick, as in production).
		var res iapp.ScheduleResult
		var swg sync.WaitGroup
		var smu sync.Mutex
		for i := range max(*replicas, 1) {
			ri := r
			if i > 0 {
				ri = iapp.NewRenewer(svc, renewals, log, ropts)
			}
			go ri.RunWorkers(rctx, *workers, time.Second)
			swg.Add(1)
			go func() {
				defer swg.Done()
				// Ticks until one was not skipped (a tick that finds the lock held returns;
				// production's next tick is a minute later, here a second).
				for rctx.Err() == nil {
					rs, err := ri.Schedule(rctx)
					if err != nil && rctx.Err() == nil {
						fmt.Fprintln(os.Stderr, "renewal-bench: scheduler:", err)
					}
					smu.Lock()
					res.Recorded += rs.Recorded
					smu.Unlock()
					if err == nil && !rs.Skipped {
						return
					}
					time.Sleep(time.Second)
				}
			}()
		}
		swg.Wait()
		schedDur = time.Since(start)
		fmt.Printf("scheduler: recorded %d in %s\n", res.Recorded, schedDur.Round(time.Millisecond))
		waitDone(rctx, pool, *n)
	default:
		return fmt.Errorf("-mode: direct or queue")
	}
	elapsed := time.Since(start)
	var renewed, due int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'renewed'), count(*) FROM renewals`).Scan(&renewed, &due); err != nil {
		return err
	}
	var charges int
	cpool, err := pgxpool.New(ctx, paymentsURL)
	if err == nil {
		_ = cpool.QueryRow(ctx, `SELECT count(*) FROM charges WHERE status = 'captured'`).Scan(&charges)
		cpool.Close()
	}
	m := mem()
	self := cpuOf("self")
	pg := pgBackendCPU(ctx, pool, []string{*prefix + "checkout", *prefix + "payments"})
	fmt.Printf("mode %s, replicas %d, workers %d, async commit %v, GOMAXPROCS %d, load average %s\n", *mode, *replicas, *workers,
		*asyncCommit, runtime.GOMAXPROCS(0), loadAverage())
	fmt.Printf("renewed %d of %d seeded (%d recorded due) in %s: %.0f renewals/s end to end", renewed, *n, due, elapsed.Round(time.Second),
		float64(renewed)/elapsed.Seconds())
	if schedDur > 0 && elapsed > schedDur {
		fmt.Printf(", %.0f/s after the scheduler's %s", float64(renewed)/(elapsed-schedDur).Seconds(), schedDur.Round(time.Second))
	}
	fmt.Printf("\npayments captured charges: %d; checkout database transactions %d\n", charges, xacts(ctx, pool)-xacts0)
	if renewed > 0 {
		fmt.Printf("CPU: this process (checkout + payments in process) %.1f s, PostgreSQL backends of the two databases %.1f s: %.2f ms CPU per renewal"+
			" (an idle 2-core machine would do at most ~%.0f renewals/s)\n", self, pg, (self+pg)*1000/float64(renewed), 2*float64(renewed)/(self+pg))
	}
	fmt.Printf("memory: heap in use min %d MiB, max %d MiB, last %d MiB (sampled every 5 s: %s); max RSS %s\n", m.min>>20, m.max>>20, m.last>>20,
		strings.Join(m.series, " "), maxRSS())
	return nil
}

// seed writes n card subscriptions (Premium + US region, USD, annual) whose terms end
// spread over the day, all renewing with the given vaulted token: the pilot's (payments
// charges a stored method only for its owner, so they are the pilot's subscriptions).
func seed(ctx context.Context, pool *pgxpool.Pool, n int, day time.Time, token string) error {
	const chunk = 100_000
	for from := 0; from < n; from += chunk {
		to := min(from+chunk, n)
		if _, err := pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, email, name, plan_code, add_ons, quantity, currency, price_in_cents,
				term_start, term_end, billing_country, billing_zip, payment_method_token, card_expires_at)
			SELECT gen_random_uuid(), $5::uuid, 'pilot' || i || '@bench.hangar.test', 'Premium', 'performance',
				ARRAY['performance', 'included_geo_us'], 1, 'USD', 47000,
				$1::timestamptz + (i % 86400) * interval '1 second' - interval '1 year', $1::timestamptz + (i % 86400) * interval '1 second',
				'US', '94105', $2, '2031-01-01'
			FROM generate_series($3::int, $4::int - 1) AS i`, day, token, from, to, payments.DevPilotAccount); err != nil {
			return fmt.Errorf("seed subscriptions: %w", err)
		}
	}
	_, err := pool.Exec(ctx, `ANALYZE subscriptions`)
	return err
}

// waitDone returns when every seeded subscription's renewal is recorded as renewed (or ctx
// ends).
func waitDone(ctx context.Context, pool *pgxpool.Pool, n int) {
	for ctx.Err() == nil {
		var done int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM renewals WHERE status <> 'due'`).Scan(&done); err == nil && done >= n {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

type memStats struct {
	min, max, last uint64
	series         []string
}

// sampleMemory samples the heap in use every 5 s; the answer reads the samples so far.
func sampleMemory(ctx context.Context) func() memStats {
	var mu sync.Mutex
	s := memStats{min: ^uint64(0)}
	var tick atomic.Int64
	take := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		defer mu.Unlock()
		s.min, s.max, s.last = min(s.min, ms.HeapInuse), max(s.max, ms.HeapInuse), ms.HeapInuse
		if tick.Add(1)%12 == 1 { // one point a minute in the printed series
			s.series = append(s.series, fmt.Sprintf("%d", ms.HeapInuse>>20))
		}
	}
	take()
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				take()
			}
		}
	}()
	return func() memStats { take(); mu.Lock(); defer mu.Unlock(); return s }
}

// cpuOf answers the user+system CPU seconds of a process ("self" or a pid) from /proc.
func cpuOf(pid string) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	var ut, st float64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return (ut + st) / 100 // USER_HZ
}

// pgBackendCPU sums the CPU seconds of the PostgreSQL backends connected to the given
// databases (same machine), read before the pools close.
func pgBackendCPU(ctx context.Context, pool *pgxpool.Pool, dbs []string) float64 {
	rows, err := pool.Query(ctx, `SELECT pid::text FROM pg_stat_activity WHERE datname = ANY($1)`, dbs)
	if err != nil {
		return 0
	}
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	total := 0.0
	for _, p := range pids {
		total += cpuOf(p)
	}
	return total
}

func maxRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "unknown"
}

// loadAverage answers the machine's 1, 5 and 15 minute load averages (the CPU the other
// processes of a shared machine took from the run).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

func lookup(m map[string]string) config.Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func dbURL(server, name string) string {
	i := strings.LastIndex(server, "/")
	q := ""
	if j := strings.Index(server[i:], "?"); j >= 0 {
		q = server[i+j:]
	}
	return server[:i+1] + name + q
}

func recreate(ctx context.Context, server, name string) error {
	if err := drop(ctx, server, name); err != nil {
		return err
	}
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

func exec(ctx context.Context, server, sql string) error {
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

func drop(ctx context.Context, server, name string) error {
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// xacts answers the transactions committed so far in the pool's database (the statistics
// PostgreSQL flushes about once a second: a figure of the run, not of one statement).
func xacts(ctx context.Context, pool *pgxpool.Pool) int64 {
	var n int64
	_ = pool.QueryRow(ctx, `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`).Scan(&n)
	return n
}
