// Package clientaddr finds the address of the client behind the proxies in front of a
// service (X-Forwarded-For, trusted by network or by hop count), and the key that rules
// counting by client use for it (an IPv6 client by its /64). Every service reads client
// addresses through it: geo to locate a visitor, auth.ClientIP for the rate limits and the
// card-testing rule.
package clientaddr

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Proxies says which hops in front of the service may be believed when they report a
// client address in X-Forwarded-For: either networks (the Ingress controller's pod
// network in the cluster, loopback in `make dev`) or, as the other services read
// TRUSTED_PROXIES, a number of hops.
type Proxies struct {
	nets []netip.Prefix
	hops int
}

// ParseProxies reads TRUSTED_PROXIES: a bare number N trusts the last N hops whatever
// their address; otherwise a list of CIDR prefixes or single addresses. Empty trusts
// nobody: the peer address is the client.
func ParseProxies(entries []string) (Proxies, error) {
	var p Proxies
	if len(entries) == 1 {
		if n, err := strconv.Atoi(strings.TrimSpace(entries[0])); err == nil {
			if n < 0 {
				return p, fmt.Errorf("trusted proxies: negative hop count %d", n)
			}
			p.hops = n
			return p, nil
		}
	}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if strings.Contains(e, "/") {
			pfx, err := netip.ParsePrefix(e)
			if err != nil {
				return p, fmt.Errorf("trusted proxies: %w", err)
			}
			p.nets = append(p.nets, pfx.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return p, fmt.Errorf("trusted proxies: %w", err)
		}
		a = a.Unmap()
		p.nets = append(p.nets, netip.PrefixFrom(a, a.BitLen()))
	}
	return p, nil
}

// Hops trusts the last n hops whatever their address (TRUSTED_PROXIES as a number).
func Hops(n int) Proxies { return Proxies{hops: max(n, 0)} }

func (p Proxies) trusts(a netip.Addr) bool {
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr answers the client's address given the connection's peer and the
// X-Forwarded-For header values (each may hold a comma list; the nearest hop is last).
// The chain is the header's entries followed by the peer. Walking from the peer towards
// the client, trusted hops are skipped (by network, or the configured number of them);
// the first hop that is not trusted is the client. An entry that is not an IP address
// ends the walk: the nearest address to its right, which a trusted proxy vouched for, is
// used, so a garbage header falls back to the peer (or the last proxy's report).
func (p Proxies) ClientAddr(peer netip.Addr, forwardedFor []string) netip.Addr {
	var chain []netip.Addr
	var valid []bool
	for _, v := range forwardedFor {
		for _, h := range strings.Split(v, ",") {
			a, ok := parseHop(strings.TrimSpace(h))
			chain, valid = append(chain, a), append(valid, ok)
		}
	}
	chain, valid = append(chain, peer.Unmap()), append(valid, true)
	last := len(chain) - 1
	if len(p.nets) == 0 {
		stop := max(last-p.hops, 0)
		for j := last; j > stop; j-- {
			if !valid[j-1] {
				return chain[j]
			}
		}
		return chain[stop]
	}
	j := last
	for j > 0 && p.trusts(chain[j]) {
		if !valid[j-1] {
			return chain[j]
		}
		j--
	}
	return chain[j]
}

// parseHop reads one X-Forwarded-For entry: an address, possibly with a port or in
// brackets ("[2001:db8::1]:443", "192.0.2.1:1234"), as some proxies write them.
func parseHop(h string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(h); err == nil {
		return ap.Addr().Unmap(), true
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		if a, err := netip.ParseAddr(h[1 : len(h)-1]); err == nil {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

// FromChain answers the client's address behind a proxy chain as a service received it:
// X-Forwarded-For values (each may be a comma list) with that service's peer last, as
// grpc-gateway hands a service the header with its HTTP peer appended. A last entry that is
// not an address trusts nothing before it: the answer is the zero Addr.
func (p Proxies) FromChain(chain []string) netip.Addr {
	var hops []string
	for _, v := range chain {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hops = append(hops, h)
			}
		}
	}
	if len(hops) == 0 {
		return netip.Addr{}
	}
	peer, ok := parseHop(hops[len(hops)-1])
	if !ok {
		return netip.Addr{}
	}
	return p.ClientAddr(peer, hops[:len(hops)-1])
}

// Key answers the key of a client address that rules counting by client use: an IPv4
// address as is, an IPv6 one by its /64 (one subscriber's whole network: a client changing
// its interface identifier is still one client). Anything else is kept verbatim.
func Key(addr string) string {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	return (&net.IPNet{IP: ip.Mask(net.CIDRMask(64, 128)), Mask: net.CIDRMask(64, 128)}).String()
}
