package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
)

// The invoice number has one format, the invoice_number function the single submit and
// the batch writer both draw it through: HGR-<year>-<sequence number, at least six digits>.
func TestInvoiceNumberFormat(t *testing.T) {
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		year int
		seq  int64
		want string
	}{
		{2026, 1, "HGR-2026-000001"},
		{2026, 42, "HGR-2026-000042"},
		{2027, 999999, "HGR-2027-999999"},
		{2027, 1234567, "HGR-2027-1234567"},
	} {
		var got string
		if err := pool.QueryRow(ctx, `SELECT invoice_number($1, $2)`, tc.year, tc.seq).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("invoice_number(%d, %d) = %q, want %q", tc.year, tc.seq, got, tc.want)
		}
	}
}
