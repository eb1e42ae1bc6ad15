package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Deeplinks are where the page may send a buyer after payment besides the receipt
// (deeplinkOnSuccess, answered as mobileDeeplink): the app's own URL schemes (an entry
// "hangar:") and https hosts (an entry "https://app.example"). Anything else is dropped,
// so a link to a store page cannot hand a paying customer to someone else's site.
type Deeplinks struct {
	schemes map[string]bool
	hosts   map[string]bool // scheme://host, lower-case
}

// ParseDeeplinks reads the allowed schemes and hosts ("scheme:" or "scheme://host").
func ParseDeeplinks(list []string) (Deeplinks, error) {
	d := Deeplinks{schemes: map[string]bool{}, hosts: map[string]bool{}}
	for _, e := range list {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
		case strings.HasSuffix(e, ":") && !strings.Contains(e, "/"):
			scheme := strings.TrimSuffix(e, ":")
			if scheme == "http" || scheme == "https" || scheme == "javascript" || scheme == "data" || scheme == "" {
				return d, fmt.Errorf("CHECKOUT_DEEPLINK_ALLOW: %q would allow any site; name the hosts (https://host)", e)
			}
			d.schemes[scheme] = true
		default:
			u, err := url.Parse(e)
			if err != nil || u.Scheme == "" || u.Host == "" || strings.Trim(u.Path, "/") != "" {
				return d, fmt.Errorf("CHECKOUT_DEEPLINK_ALLOW: %q is neither a scheme (hangar:) nor a scheme and host (https://app.example)", e)
			}
			d.hosts[u.Scheme+"://"+u.Host] = true
		}
	}
	return d, nil
}

// Allows reports whether link goes to the app: its scheme is allowed, or its scheme and
// host are.
func (d Deeplinks) Allows(link string) bool {
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || u.Scheme == "" || u.User != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return d.schemes[scheme] || (u.Host != "" && d.hosts[scheme+"://"+strings.ToLower(u.Host)])
}

// deeplink answers the deeplinkOnSuccess to give back, or "" when it is not the app's
// (logged with its scheme and host only: the rest may carry someone's data).
func (s *Service) deeplink(ctx context.Context, link string) string {
	link = strings.TrimSpace(link)
	if link == "" || s.deeplinks.Allows(link) {
		return link
	}
	where := "unparsable"
	if u, err := url.Parse(link); err == nil {
		where = u.Scheme + "://" + u.Host
	}
	s.log.WarnContext(ctx, "deeplinkOnSuccess dropped: not an allowed app scheme or host (CHECKOUT_DEEPLINK_ALLOW)", "to", where)
	return ""
}
