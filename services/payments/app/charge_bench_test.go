package app_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// BenchmarkCharge is payments' part of a purchase: per operation a new buyer's card
// tokenised and charged with store_in_vault (the card that paid becomes the buyer's method
// on file), both through real gRPC over loopback against real PostgreSQL, as checkout calls
// them. Besides ns/op it reports the CPU this process and the PostgreSQL backends of the
// test database spent per order, and the statements and transactions per order of each
// pool (hangar_db_*_total on the admin port: main is payments' own, sandbox the card
// processor's). Charges carry the buyer's client as checkout forwards it, so the
// card-testing rule is checked as in production. make bench runs it; make test does not.
func BenchmarkCharge(b *testing.B) {
	r := start(b, nil)
	ctx := context.Background()
	order := func(i int) {
		n, err := r.rpc.Tokenize(ctx, &paymentsv1.TokenizeRequest{Number: gateway.CardVisaOK, Cvv: "737", ExpirationDate: "12/2031",
			CardholderName: "Amelia Earhart", PostalCode: "94105"})
		if err != nil {
			b.Fatal(err)
		}
		// As checkout sends it: the buyer's address, session and device ride along (auth.OutgoingClient),
		// so the card-testing rule's check rides in the charge's statements.
		cctx := metadata.AppendToOutgoingContext(ctx, "x-hangar-client-addr", fmt.Sprintf("198.51.%d.%d", i/250%250, i%250),
			"x-hangar-client-session", fmt.Sprintf("bench-session-%d", i), "x-hangar-client-device", fmt.Sprintf("bench-device-%d", i))
		resp, err := r.rpc.Charge(cctx, &paymentsv1.ChargeRequest{IdempotencyKey: "bench-" + strconv.Itoa(i), Amount: 47000, Currency: "USD",
			Nonce: n.GetNonce(), CustomerId: fmt.Sprintf("bench-buyer-%d", i), StoreInVault: true, Reference: "order-" + strconv.Itoa(i)})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			b.Fatalf("charge: %v %v", resp, err)
		}
	}
	for i := range 20 { // warm the pools and the statement caches
		order(-1 - i)
	}
	m0, c0, pg0 := r.dbCounters(b), processCPU(b), r.backendCPU(b)
	b.ResetTimer()
	for i := range b.N {
		order(i)
	}
	b.StopTimer()
	m1, c1, pg1 := r.dbCounters(b), processCPU(b), r.backendCPU(b)
	per := func(d float64) float64 { return d / float64(b.N) }
	b.ReportMetric(per(float64((c1-c0).Microseconds())/1000), "cpu-ms/order")
	b.ReportMetric(per(float64((pg1-pg0).Microseconds())/1000), "pg-cpu-ms/order")
	for _, k := range []string{"main statements", "main transactions", "sandbox statements", "sandbox transactions"} {
		// The scrape itself reads the outbox's depth: one main statement and transaction, not the order's.
		d := m1[k] - m0[k]
		if strings.HasPrefix(k, "main") {
			d--
		}
		b.ReportMetric(per(d), strings.ReplaceAll(k, " ", "-")+"/order")
	}
}

// dbCounters scrapes the admin port's statement and transaction counters by pool.
func (r *running) dbCounters(t testing.TB) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, pool := range []string{"main", "sandbox"} {
		out[pool+" statements"] = servicetest.Metric(t, r.admin, "hangar_db_statements_total", `pool="`+pool+`"`)
		out[pool+" transactions"] = servicetest.Metric(t, r.admin, "hangar_db_transactions_total", `pool="`+pool+`"`)
	}
	return out
}

// backendCPU answers the user and system CPU time so far of the PostgreSQL backends
// connected to the test database (the server runs on this machine: /proc has them).
func (r *running) backendCPU(t testing.TB) time.Duration {
	t.Helper()
	var total time.Duration
	for _, row := range pgxQuery(t, r.dbURL, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`, nil) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", row[0].(int32)))
		if err != nil {
			continue // gone since
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	}
	return total
}

// processCPU answers the process's user and system CPU time so far.
func processCPU(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
