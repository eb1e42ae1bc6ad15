package domain

import (
	"fmt"
	"time"
)

// Throttle limits failed logins in a sliding window, so that nobody can lock a real user
// out: failures for one account from one address are limited tightly (that is the
// password guesser) and failures from one address over all accounts loosely (a
// credential stuffer). Failures for one account from everywhere never block the account:
// that would hand its lock to anyone who knows the e-mail (before, 10 addresses × 5 wrong
// passwords refused the owner's right password from every address for 15 minutes).
// Instead an account with PerAccount failures in the window is under attack and slows
// down: each address then gets UnderAttackPerAccountIP guesses instead of PerAccountIP,
// while a first attempt from an address of the owner's own always goes through. While a
// limit is reached, attempts are refused without being counted, so a block ends at most
// Window after the failures that caused it.
type Throttle struct {
	Window                  time.Duration
	PerAccountIP            int
	PerAccount              int
	UnderAttackPerAccountIP int
	PerIP                   int
}

// DefaultThrottle: in 15 minutes, 5 failures per account and address (2 once the account
// has 50 failures from anywhere), 100 per address.
var DefaultThrottle = Throttle{Window: 15 * time.Minute, PerAccountIP: 5, PerAccount: 50, UnderAttackPerAccountIP: 2, PerIP: 100}

// PairLimit answers the failures allowed for the account from one address, given the
// account's failures from everywhere (account).
func (t Throttle) PairLimit(account Window) int {
	if t.PerAccount > 0 && account.Count >= t.PerAccount && t.UnderAttackPerAccountIP > 0 {
		return min(t.UnderAttackPerAccountIP, t.PerAccountIP)
	}
	return t.PerAccountIP
}

// Wait answers how long an attempt with these windows (the account from this address, the
// account from everywhere, this address over every account) must wait; zero: go ahead.
func (t Throttle) Wait(pair, account, ip Window, now time.Time) time.Duration {
	return max(t.RetryAfter(pair, t.PairLimit(account), now), t.RetryAfter(ip, t.PerIP, now))
}

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
