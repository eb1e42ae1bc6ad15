package app_test

import (
	"context"
	"testing"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// A successful login writes two transactions in four statements, all pipelined (no
// statement waits for a round trip of its own): the attempt counted in its buckets (one
// statement, login_attempt) sent with the account's look-up, and the session written
// with the throttle's bookkeeping of a right password (its tokens given back, the
// address's failures forgotten) in one statement beside it. Before, it wrote seven
// transactions: three to count the attempt, three to give the tokens back and forget the
// address's failures, and the session. The counts are exact, so a statement or a commit
// added to the login fails here (docs/performance.md records them).
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
	if want := (dbtest.Counts{Batched: 4, Transactions: 2}); got != want {
		t.Errorf("a successful login: %+v, want %+v", got, want)
	}
}
