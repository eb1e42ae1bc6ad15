package domain

import "time"

// singleUseOpen reports whether a single-use token, spent at spent (zero: never) and
// expiring at expires, can still be used at now: the one rule of invitations and
// password links.
func singleUseOpen(spent, expires, now time.Time) bool {
	return spent.IsZero() && now.Before(expires)
}
