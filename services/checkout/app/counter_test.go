package app_test

import (
	"fmt"
	"testing"
)

// Issue 41: the preview's counter told anyone how often an e-mail (or a cart id) had been
// priced: it was kept per e-mail across every caller, so a stranger's first preview naming
// pilot@demo.hangar.test answered 1 + the number of the owner's earlier previews. Now it
// is the page's own quote stream (the counter it sent, plus one), for the invoice preview
// and the gift validation alike; another page's requests do not move it.
func TestCounterRevealsNothingOfOtherSessions(t *testing.T) {
	t.Parallel()
	base := start(t, nil)
	const victim = "pilot@demo.hangar.test"
	routes := map[string]struct{ path, body string }{
		"invoice preview": {"/buy/api/invoice/preview", `{"email":"` + victim + `","cartId":"victim-cart","currency":"USD","counter":%d}`},
		"gift validate":   {"/buy/api/gift/validate", `{"giftCertValues":[125],"email":"` + victim + `","counter":%d}`},
	}
	for name, r := range routes {
		counterOf := func(m map[string]any) any {
			if inv, ok := m["invoice"].(map[string]any); ok && inv["counter"] != nil {
				return inv["counter"]
			}
			return m["counter"]
		}
		// The owner's page prices a few times, its counter going up.
		for i := range 5 {
			if code, m := call(t, "POST", base+r.path, fmt.Sprintf(r.body, i)); code != 200 || counterOf(m) != float64(i+1) {
				t.Fatalf("%s: the owner's request %d = %d counter %v, want %d", name, i, code, counterOf(m), i+1)
			}
		}
		// A stranger's first request naming the same e-mail and cart learns nothing of them.
		if code, m := call(t, "POST", base+r.path, fmt.Sprintf(r.body, 0)); code != 200 || counterOf(m) != 1.0 {
			t.Errorf("%s: a stranger's first request = %d counter %v, want 1 (the owner's previews are none of theirs)", name, code, counterOf(m))
		}
	}
}
