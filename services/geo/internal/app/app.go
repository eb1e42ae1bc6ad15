// Package app provides geo's use case: locating a visitor from the address they connect
// from, through the proxies in front of the service.
package app

import (
	"net/netip"
	"strings"

	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/geo/internal/domain"
)

// Locator answers locations from an IP data set.
type Locator struct {
	country domain.CountryFunc
	proxies clientaddr.Proxies
}

// NewLocator builds a Locator over the data set country, believing X-Forwarded-For only
// from proxies.
func NewLocator(country domain.CountryFunc, proxies clientaddr.Proxies) *Locator {
	return &Locator{country: country, proxies: proxies}
}

// Locate answers the location of an address given as text; it is invalid_argument when
// the text is not an IP address.
func (l *Locator) Locate(ip string) (domain.Location, error) {
	a, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return domain.Location{}, errs.Field("ip", "not an IP address")
	}
	return domain.Locate(a, l.country), nil
}

// LocateClient answers the location of the client of a connection from peer, with the
// X-Forwarded-For values it carried.
func (l *Locator) LocateClient(peer netip.Addr, forwardedFor []string) domain.Location {
	return domain.Locate(l.proxies.ClientAddr(peer, forwardedFor), l.country)
}

// LocateChain answers the location of the client behind a proxy chain as another service
// received it: X-Forwarded-For entries (each value may be a comma list) with that
// service's peer last. A last entry that is not an address trusts nothing before it.
func (l *Locator) LocateChain(chain []string) domain.Location {
	return domain.Locate(l.proxies.FromChain(chain), l.country)
}
