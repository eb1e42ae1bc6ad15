package domain

import (
	"net/netip"
	"testing"
)

// fakeData is a tiny IP data set so the rules are tested apart from the real one (the
// service's tests use the embedded data).
func fakeData(a netip.Addr) string {
	return map[string]string{
		"193.99.144.80": "DE", "81.2.69.142": "GB", "24.48.0.1": "CA", "1.128.0.1": "AU",
		"8.8.8.8": "US", "2003:e0::1": "DE", "212.27.48.10": "fr", "80.239.224.1": "SE",
		"5.45.207.1": "ME", "203.0.113.9": "ZZ", "198.51.100.7": "",
	}[a.String()]
}

func TestLocate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ip, country, currency string
		eu                          bool
	}{
		{"euro area member", "193.99.144.80", "DE", EUR, true},
		{"lower-case code from the data set", "212.27.48.10", "FR", EUR, true},
		{"EU member outside the euro area", "80.239.224.1", "SE", USD, true},
		{"euro user outside the EU", "5.45.207.1", "ME", EUR, false},
		{"United Kingdom", "81.2.69.142", "GB", GBP, false},
		{"Canada", "24.48.0.1", "CA", CAD, false},
		{"Australia", "1.128.0.1", "AU", AUD, false},
		{"United States", "8.8.8.8", "US", USD, false},
		{"IPv6 in the euro area", "2003:e0::1", "DE", EUR, true},
		{"IPv4-mapped IPv6", "::ffff:193.99.144.80", "DE", EUR, true},
		{"private IPv4", "10.1.2.3", "", USD, false},
		{"private IPv6", "fd00::1", "", USD, false},
		{"loopback", "127.0.0.1", "", USD, false},
		{"unspecified", "::", "", USD, false},
		{"placeholder from the data set", "203.0.113.9", "", USD, false},
		{"unknown to the data set", "198.51.100.7", "", USD, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Locate(netip.MustParseAddr(tc.ip), fakeData)
			if got.CountryCode != tc.country || got.IsEU != tc.eu || got.Currency != tc.currency {
				t.Errorf("Locate(%s) = %s eu=%v %s, want %s eu=%v %s", tc.ip, got.CountryCode, got.IsEU, got.Currency, tc.country, tc.eu, tc.currency)
			}
		})
	}
	if got := Locate(netip.Addr{}, fakeData); got.Currency != USD || got.IsEU {
		t.Errorf("Locate(invalid) = %+v, want USD, not EU", got)
	}
}

func TestEveryEUMemberAndEuroCountryIsKnown(t *testing.T) {
	t.Parallel()
	if len(euMembers) != 27 {
		t.Errorf("EU members = %d, want 27", len(euMembers))
	}
	inEU := 0
	for cc := range euroArea {
		if euMembers[cc] {
			inEU++
		}
	}
	if inEU != 21 {
		t.Errorf("euro-area EU members = %d, want 21 (2026)", inEU)
	}
}
