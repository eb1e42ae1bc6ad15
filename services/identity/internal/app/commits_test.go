package app_test

import (
	"context"
	"testing"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// A successful login writes two transactions: the attempt counted in its buckets (one
// statement), and the session with the throttle's bookkeeping of a right password (its
// tokens given back). Before, it wrote seven: three to count the attempt, three to give
// the tokens back and forget the address's failures, and the session.
func TestSuccessfulLoginWritesTwoCommits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.account(t, "pilot@example.com")
	count := dbtest.Counter(t, e.pool)
	before := count()
	if _, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", iapp.Request{IP: "198.51.100.9"}); err != nil {
		t.Fatal(err)
	}
	got := count().Minus(before)
	if got.Transactions > 2 {
		t.Errorf("a successful login: %+v, want at most 2 transactions", got)
	}
}
