package domain

import (
	"fmt"
	"time"
)

// Throttle limits failed logins in a sliding window. Three counters, so that an attacker
// cannot lock a real user out for long: failures for one account from one address are
// limited tightly (that is the password guesser), failures for one account from anywhere
// loosely (a distributed guesser), and failures from one address over all accounts (a
// credential stuffer). While a limit is reached, attempts are refused without being
// counted, so a block ends at most Window after the failures that caused it.
type Throttle struct {
	Window       time.Duration
	PerAccountIP int
	PerAccount   int
	PerIP        int
}

// DefaultThrottle: in 15 minutes, 5 failures per account and address, 50 per account,
// 100 per address.
var DefaultThrottle = Throttle{Window: 15 * time.Minute, PerAccountIP: 5, PerAccount: 50, PerIP: 100}

// Keys of the failure counters.
func (Throttle) AccountIPKey(email, ip string) string { return "acct-ip:" + email + "|" + ip }
func (Throttle) AccountKey(email string) string       { return "acct:" + email }
func (Throttle) IPKey(ip string) string               { return "ip:" + ip }

// Window is a failure counter's state: failures in the window and the oldest one.
type Window struct {
	Count  int
	Oldest time.Time
}

// RetryAfter answers how long until the counter drops below limit (zero: not blocked).
// In a sliding window the block lifts when the oldest counted failure leaves it.
func (t Throttle) RetryAfter(w Window, limit int, now time.Time) time.Duration {
	if limit <= 0 || w.Count < limit {
		return 0
	}
	d := w.Oldest.Add(t.Window).Sub(now)
	if d <= 0 {
		return 0
	}
	return d
}

// ThrottledMessage is the clear message of a throttled login.
func ThrottledMessage(wait time.Duration) string {
	m := int((wait + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "Too many failed login attempts. Please try again in a minute."
	}
	return fmt.Sprintf("Too many failed login attempts. Please try again in %d minutes.", m)
}
