package domain_test

import (
	"testing"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// BenchmarkRender renders the two mails of an order (the account's welcome, the receipt) as the
// consumer does for every event.
func BenchmarkRender(b *testing.B) {
	r, err := domain.NewRenderer(site)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("receipt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Receipt("ev", fullReceipt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("welcome", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Welcome("ev", domain.Welcome{Email: "a@example.com", AccountKind: "individual"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
