package domain_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// BenchmarkRender renders the two mails of an order (the account's welcome, the receipt) as the
// consumer does for every event. cpu-ns/op is the process's user+system CPU per mail (the
// garbage collector's included), which wall time on a shared 2-core box does not show.
func BenchmarkRender(b *testing.B) {
	r, err := domain.NewRenderer(site)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("receipt", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime(b)
		for b.Loop() {
			if _, err := r.Receipt("ev", fullReceipt); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("welcome", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime(b)
		for b.Loop() {
			if _, err := r.Welcome("ev", domain.Welcome{Email: "a@example.com", AccountKind: "individual"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
	})
	// The welcome of an account checkout created: its link to choose a password.
	b.Run("welcome-link", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime(b)
		for b.Loop() {
			if _, err := r.Welcome("ev", domain.Welcome{Email: "a@example.com", AccountKind: "individual",
				SetPasswordPath: "/account/set-password#token=TOKEN&welcome=1", ExpiresAt: at}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
	})
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
