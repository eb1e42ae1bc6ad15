package domain

import (
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
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
	for _, in := range [][]string{{"-1"}, {"10.0.0.0/33"}, {"loopback"}, {"10.0.0.0/8", "x"}} {
		if _, err := ParseProxies(in); err == nil {
			t.Errorf("ParseProxies(%q) succeeded, want an error", in)
		}
	}
}
