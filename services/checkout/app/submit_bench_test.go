package app_test

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/servicetest"
)

// BenchmarkSubmit is the purchase journey's hot path against real PostgreSQL: per
// operation a new buyer's nonce (payments' tokenize), a preview with its quote, and the
// submit (account created at identity, one charge at payments, order, lines, subscription
// and outbox events in checkout's transaction), through checkout's REST API as the edge
// calls it. Besides ns/op it reports the CPU the test process (catalog, identity, payments
// and checkout, all in it) spent per order, and the statements checkout sent per order
// (hangar_db_statements_total on its admin port); PostgreSQL's CPU is not in it
// (scripts/checkout-cpu.sh measures the whole stack). make bench runs it; make test does not.
func BenchmarkSubmit(b *testing.B) {
	st := startStack(b, nil)
	_, _, admin := st.app.Addrs()
	statements := func() float64 { return servicetest.Metric(b, admin, "hangar_db_statements_total") }
	order := func(i int) {
		nonce := st.tokenize(b, "4111111111111111")
		cfg := newBuyer("bench-" + strconv.Itoa(i))
		body := quoted(b, st.base, cfg, nonce, "")
		if code, m, _ := submitRaw(b, st.base, "bench-"+cfg, body, ""); code != 200 || m["invoiceId"] == "" {
			b.Fatalf("submit: %d %v", code, m)
		}
	}
	for i := range 5 { // warm the pools, the catalogue and the statement caches
		order(-1 - i)
	}
	s0, c0 := statements(), cpu(b)
	b.ResetTimer()
	for i := range b.N {
		order(i)
	}
	b.StopTimer()
	b.ReportMetric(float64((cpu(b)-c0).Microseconds())/1000/float64(b.N), "cpu-ms/order")
	// The scrape itself reads the outbox's depth: one statement, not the order's.
	b.ReportMetric((statements()-s0-1)/float64(b.N), "checkout-statements/order")
}

// cpu answers the process's user and system CPU time so far.
func cpu(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
