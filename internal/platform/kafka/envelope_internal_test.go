package kafka

import (
	"encoding/json"
	"maps"
	"testing"
)

// The outbox headers' JSON reads back as the map encoding/json made of them before, the
// later of two equal names winning, whatever the strings hold.
func TestHeaderListJSONMatchesAMap(t *testing.T) {
	t.Parallel()
	for _, h := range []headerList{
		nil,
		{{HeaderID, "0193a4d2-7c1e-7b3a-9f00-5d6e7f809102"}, {HeaderSubject, ""}, {"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},
		{{HeaderSubject, `quote " backslash \ <tag> & amp`}, {"ctl", "a\x00b\nc\td\x7f"}, {"utf8", "größe 注文 🛒"}, {"bad", "\xff\xfe"}, {"ü", "key"}},
		{{HeaderType, "first"}, {HeaderID, "x"}, {HeaderType, "second"}},
	} {
		want := map[string]string{}
		for _, x := range h {
			want[x.key] = x.value
		}
		wantJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		want = nil // as encoding/json's encoding reads back (invalid UTF-8 replaced)
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatal(err)
		}
		b, err := h.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s reads back as %q, want %q", b, got, want)
		}
	}
}

func TestSourceOfNamesTheService(t *testing.T) {
	t.Parallel()
	for topic, want := range map[string]string{
		"hangar.checkout.order-completed.v1": "/hangar/checkout", "hangar.identity.x": "/hangar/identity",
		"hangar..x": "/hangar/", "hangar.checkout": "/hangar", "hangar": "/hangar", "other.checkout.x": "/hangar", "": "/hangar",
	} {
		if got := sourceOf(topic); got != want {
			t.Errorf("sourceOf(%q) = %q, want %q", topic, got, want)
		}
	}
}
