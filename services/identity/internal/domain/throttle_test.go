package domain

import "testing"

// Issue 41: the login throttle keyed on the raw address, so an account under attack gave
// each new IPv6 address of one /64 two more guesses: no ceiling. Its address buckets now
// count a client by the platform's key (IPv6 by its /64, IPv4 by its address).
func TestThrottleKeysCountAnIPv6ClientByItsSlash64(t *testing.T) {
	t.Parallel()
	var th Throttle
	same := [][2]string{
		{"2001:db8:aa:bb::1", "2001:db8:aa:bb:ffff:ffff:ffff:fffe"},
		{"2001:db8:aa:bb::1", "2001:db8:aa:bb:1234::99"},
		{"::ffff:198.51.100.7", "198.51.100.7"},
	}
	for _, p := range same {
		if a, b := th.IPKey(p[0]), th.IPKey(p[1]); a != b {
			t.Errorf("IPKey(%s) = %q, IPKey(%s) = %q: one client", p[0], a, p[1], b)
		}
		if a, b := th.AccountIPKey("pilot@demo.hangar.test", p[0]), th.AccountIPKey("pilot@demo.hangar.test", p[1]); a != b {
			t.Errorf("AccountIPKey(%s) = %q, AccountIPKey(%s) = %q: one client", p[0], a, p[1], b)
		}
	}
	other := [][2]string{
		{"2001:db8:aa:bb::1", "2001:db8:aa:bc::1"},
		{"198.51.100.7", "198.51.100.8"},
	}
	for _, p := range other {
		if th.IPKey(p[0]) == th.IPKey(p[1]) || th.AccountIPKey("a@b.test", p[0]) == th.AccountIPKey("a@b.test", p[1]) {
			t.Errorf("%s and %s share a key: two clients", p[0], p[1])
		}
	}
}
