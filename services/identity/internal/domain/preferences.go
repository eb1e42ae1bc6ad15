package domain

import (
	"fmt"
	"sort"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Consent names and sources of the consent history.
const (
	ConsentMarketing = "marketing"

	ConsentByPreferences  = "preferences"     // the account's own POST /account/api/settings/preferences
	ConsentByPurchase     = "purchase"        // a purchase's marketing checkbox (checkout's event)
	ConsentByAccountStart = "account-created" // given when the account was created
)

// PrefMarketing is the one preference spec 001 documents (POST preferences, GET
// websettings, GET eu_consent's preference): the account's EU marketing consent.
const PrefMarketing = "marketingNotificationsEnabled"

// Preferences is a typed preferences update: each documented key, nil when not sent.
type Preferences struct {
	MarketingNotificationsEnabled *bool
}

// ParsePreferences checks a posted preferences object: only documented keys, each of its
// type (a JSON true or false, never "t" or 1: the marketing preference is a legal consent).
// The error names the first offending field in plain words.
func ParsePreferences(in map[string]any) (Preferences, error) {
	var p Preferences
	if len(in) == 0 {
		return p, errs.Field("preferences", "Send at least one preference, e.g. {\""+PrefMarketing+"\": true}.")
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same body names the same field every time
	for _, k := range keys {
		switch k {
		case PrefMarketing:
			b, ok := in[k].(bool)
			if !ok {
				return Preferences{}, errs.Field(k, k+" must be true or false.")
			}
			p.MarketingNotificationsEnabled = &b
		default:
			return Preferences{}, errs.Field(fieldName(k), fmt.Sprintf("%s is not a preference; the preferences are: %s.", fieldName(k), PrefMarketing))
		}
	}
	return p, nil
}

// fieldName bounds a client's key before it is repeated in an answer.
func fieldName(k string) string {
	if r := []rune(k); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return k
}
