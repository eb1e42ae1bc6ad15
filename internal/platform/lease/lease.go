// Package lease is how a claimant holds a row of work in PostgreSQL: a lease that ends on
// the database's clock (clock_timestamp(), never the claimant's: a process whose clock is
// frozen, an operator's -as-of or a skewed host cannot make a lease end early or late), a
// fencing token that grows with every claim or takeover (Kleppmann's fencing tokens: a
// claimant that was paused and lost its lease is told so by every conditional write that
// carries its token), and a heartbeat that renews the leases a live claimant still holds.
//
// A table holding leases has a lease_until timestamptz column and a fence bigint column.
// A claim or takeover sets both with Take; every write of the holder, the heartbeat's
// included, is conditional on the token it got (fence = $n).
package lease

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Interval is d as the interval parameter of the SQL fragments (bound as text, cast with
// ::interval).
func Interval(d time.Duration) string { return fmt.Sprintf("%d microseconds", d.Microseconds()) }

// Until is the end of a lease taken now for the interval parameter param ("$2").
func Until(param string) string { return "clock_timestamp() + " + param + "::interval" }

// Take is the SET list of a claim or takeover of table's row for the interval parameter
// param: the lease ends on the database's clock and the fence moves on, so whoever held
// the row before can no longer write under its token.
func Take(param string) string { return "lease_until = " + Until(param) + ", fence = fence + 1" }

// Drop is the SET item that ends a lease now (on the database's clock), so another claimant
// may take the row at once.
const Drop = "lease_until = clock_timestamp() - interval '1 microsecond'"

// Expired is the condition of a row whose lease has run out (on the database's clock).
const Expired = "lease_until < clock_timestamp()"

// Held is the condition of a row whose lease still runs (on the database's clock).
const Held = "lease_until >= clock_timestamp()"

// Keeper renews leases while their holder works on them.
type Keeper struct {
	// Every is how often Renew runs (at most a third of the lease, so two missed renewals
	// still keep it). Keep does nothing when it is not positive.
	Every time.Duration
	// Timeout bounds one renewal (default Every).
	Timeout time.Duration
	// Renew extends the leases still held under the holder's tokens (one statement).
	Renew func(ctx context.Context) error
	// Log gets a renewal's failure (What names the leases in it).
	Log  *slog.Logger
	What string
	// OnBeat, when set, runs after each renewal (tests).
	OnBeat func()
}

// Keep renews every Every until the answered stop is called; stop returns once the last
// renewal is over. A holder that dies stops renewing with it, so its work is taken over a
// lease after its last sign of life.
func (k Keeper) Keep() (stop func()) {
	if k.Every <= 0 || k.Renew == nil {
		return func() {}
	}
	timeout := k.Timeout
	if timeout <= 0 {
		timeout = k.Every
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(k.Every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				err := k.Renew(ctx)
				cancel()
				if err != nil {
					if k.Log != nil {
						k.Log.Warn("renew leases", "leases", k.What, "err", err.Error())
					}
				} else if k.OnBeat != nil {
					k.OnBeat()
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}
