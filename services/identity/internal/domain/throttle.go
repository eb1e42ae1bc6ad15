package domain

import (
	"fmt"
	"time"

	"github.com/hangar/hangar/internal/platform/clientaddr"
)

// Throttle limits failed logins so that nobody can lock a real user out: failures for
// one account from one address are limited tightly (that is the password guesser) and
// failures from one address over all accounts loosely (a credential stuffer). Failures
// for one account from everywhere never block the account: that would hand its lock to
// anyone who knows the e-mail (before, 10 addresses × 5 wrong passwords refused the
// owner's right password from every address for 15 minutes). Instead an account with
// PerAccount failures in the window is under attack and slows down: each address then
// gets UnderAttackPerAccountIP guesses instead of PerAccountIP, while a first attempt from
// an address of the owner's own always goes through. Refused attempts are not counted.
//
// Each limit "N per Window" is a bucket of the platform's rate limiter (ratelimit.PerWindow:
// N at once, then one more every Window/N; docs/decisions/0008-one-rate-limiter.md), so
// a blocked guesser waits Window/N for its next guess, not the whole window.
type Throttle struct {
	Window                  time.Duration
	PerAccountIP            int
	PerAccount              int
	UnderAttackPerAccountIP int
	PerIP                   int
	// PerDevice limits the logins, right or wrong, of one known device (a device cookie of
	// the account): its lane skips the other buckets, so it has a bucket of its own, which
	// a right password does not refill (a stolen cookie buys few guesses).
	PerDevice int
}

// DefaultThrottle: in 15 minutes, 5 failures per account and address (2 once the account
// has 50 failures from anywhere), 100 per address, 10 logins per known device.
var DefaultThrottle = Throttle{Window: 15 * time.Minute, PerAccountIP: 5, PerAccount: 50, UnderAttackPerAccountIP: 2, PerIP: 100, PerDevice: 10}

// PairLimit answers the failures allowed for the account from one address: fewer while
// the account is under attack. Its bucket refills at the PerAccountIP rate either way.
func (t Throttle) PairLimit(underAttack bool) int {
	if underAttack && t.UnderAttackPerAccountIP > 0 {
		return min(t.UnderAttackPerAccountIP, t.PerAccountIP)
	}
	return t.PerAccountIP
}

// Keys of the failure buckets. An address is counted by the platform's client key
// (clientaddr.Key: IPv6 by its /64), so a client changing its interface identifier is not
// a new address with fresh guesses (issue 41).
func (Throttle) AccountIPKey(email, ip string) string {
	return "login|acct-ip:" + email + "|" + clientaddr.Key(ip)
}
func (Throttle) AccountKey(email string) string { return "login|acct:" + email }
func (Throttle) IPKey(ip string) string         { return "login|ip:" + clientaddr.Key(ip) }
func (Throttle) DeviceKey(id string) string     { return "login|device:" + id }

// ThrottledMessage is the clear message of a throttled login.
func ThrottledMessage(wait time.Duration) string {
	m := int((wait + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "Too many failed login attempts. Please try again in a minute."
	}
	return fmt.Sprintf("Too many failed login attempts. Please try again in %d minutes.", m)
}
