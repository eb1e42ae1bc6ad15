package clientaddr

import (
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	loopback := []string{"127.0.0.0/8", "::1"}
	ingress := []string{"10.0.0.0/8"}
	for _, tc := range []struct {
		name    string
		trusted []string
		peer    string
		xff     []string
		want    string
	}{
		{"no header: the peer", loopback, "127.0.0.1", nil, "127.0.0.1"},
		{"dev: loopback peer vouches for the test's address", loopback, "127.0.0.1", []string{"193.99.144.80"}, "193.99.144.80"},
		{"IPv6 loopback peer", loopback, "::1", []string{"2003:e0::1"}, "2003:e0::1"},
		{"untrusted peer: its header is ignored", loopback, "198.51.100.7", []string{"193.99.144.80"}, "198.51.100.7"},
		{"garbage header: the peer", loopback, "127.0.0.1", []string{"not-an-ip"}, "127.0.0.1"},
		{"empty header value: the peer", loopback, "127.0.0.1", []string{""}, "127.0.0.1"},
		{"chain: the first untrusted hop from the right", ingress, "10.1.0.5", []string{"203.0.113.1, 8.8.8.8, 10.2.0.9"}, "8.8.8.8"},
		{"client-supplied entries left of it are ignored", ingress, "10.1.0.5", []string{"193.99.144.80, 8.8.8.8"}, "8.8.8.8"},
		{"several header lines form one chain", ingress, "10.1.0.5", []string{"193.99.144.80", "10.3.0.1"}, "193.99.144.80"},
		{"garbage inside the chain stops at the last vouched hop", ingress, "10.1.0.5", []string{"8.8.8.8, junk, 10.2.0.9"}, "10.2.0.9"},
		{"every hop trusted: the leftmost", ingress, "10.1.0.5", []string{"10.9.9.9, 10.2.0.9"}, "10.9.9.9"},
		{"hops with ports and brackets", ingress, "10.1.0.5", []string{"[2001:4860:4860::8888]:443, 10.2.0.9:8080"}, "2001:4860:4860::8888"},
		{"IPv4-mapped peer", loopback, "::ffff:127.0.0.1", []string{"8.8.8.8"}, "8.8.8.8"},
		{"count 1: the Ingress's report", []string{"1"}, "10.1.0.5", []string{"193.99.144.80, 8.8.8.8"}, "8.8.8.8"},
		{"count 1 without header: the peer", []string{"1"}, "10.1.0.5", nil, "10.1.0.5"},
		{"count 1 with garbage: the peer", []string{"1"}, "10.1.0.5", []string{"junk"}, "10.1.0.5"},
		{"count 2 through two proxies", []string{"2"}, "10.1.0.5", []string{"193.99.144.80, 8.8.8.8, 10.2.0.9"}, "8.8.8.8"},
		{"count larger than the chain: the leftmost", []string{"3"}, "10.1.0.5", []string{"8.8.8.8"}, "8.8.8.8"},
		{"count 0: the peer", []string{"0"}, "10.1.0.5", []string{"8.8.8.8"}, "10.1.0.5"},
		{"nobody trusted: the peer", nil, "127.0.0.1", []string{"8.8.8.8"}, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseProxies(tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			got := p.ClientAddr(netip.MustParseAddr(tc.peer), tc.xff)
			if got.String() != tc.want {
				t.Errorf("ClientAddr(%s, %q) = %s, want %s", tc.peer, tc.xff, got, tc.want)
			}
		})
	}
}

func TestParseProxiesRejectsNonsense(t *testing.T) {
	t.Parallel()
	for _, in := range [][]string{{"-1"}, {"10.0.0.0/33"}, {"loopback"}, {"10.0.0.0/8", "x"}} {
		if _, err := ParseProxies(in); err == nil {
			t.Errorf("ParseProxies(%q) succeeded, want an error", in)
		}
	}
}

// A chain as a service receives it (the peer last): what auth.ClientIP counted with a hop
// count, and what geo located for checkout.
func TestFromChain(t *testing.T) {
	t.Parallel()
	ingress, _ := ParseProxies([]string{"10.0.0.0/8"})
	for _, tc := range []struct {
		name  string
		p     Proxies
		chain []string
		want  string
	}{
		{"ClientIP behind one proxy", Hops(1), []string{"6.6.6.6, 1.2.3.4, 10.0.0.9"}, "1.2.3.4"},
		{"ClientIP behind none", Hops(0), []string{"6.6.6.6, 1.2.3.4, 10.0.0.9"}, "10.0.0.9"},
		{"ClientIP with more proxies than hops: the leftmost", Hops(9), []string{"6.6.6.6, 1.2.3.4, 10.0.0.9"}, "6.6.6.6"},
		{"a negative count trusts nobody", Hops(-1), []string{"6.6.6.6, 10.0.0.9"}, "10.0.0.9"},
		{"values of several header lines", Hops(1), []string{"6.6.6.6", "1.2.3.4", "10.0.0.9"}, "1.2.3.4"},
		{"a hop written with its port", Hops(1), []string{"1.2.3.4:5678, 10.0.0.9"}, "1.2.3.4"},
		{"an IPv4-mapped hop is its IPv4 address", Hops(1), []string{"::ffff:1.2.3.4, 10.0.0.9"}, "1.2.3.4"},
		{"garbage where the client should be: the proxy that reported it", Hops(1), []string{"junk, 10.0.0.9"}, "10.0.0.9"},
		{"by network", ingress, []string{"193.99.144.80, 8.8.8.8, 10.2.0.9"}, "8.8.8.8"},
		{"peer not an address: nothing", ingress, []string{"8.8.8.8, junk"}, "invalid IP"},
		{"empty chain: nothing", Hops(1), []string{" , "}, "invalid IP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.FromChain(tc.chain).String(); got != tc.want {
				t.Errorf("FromChain(%q) = %s, want %s", tc.chain, got, tc.want)
			}
		})
	}
}

func TestKeyCountsIPv6ByItsSlash64(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"::ffff:203.0.113.7":   "203.0.113.7",
		"2001:db8:1:2::5":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"not an address":       "not an address",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}
