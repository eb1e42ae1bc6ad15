package app

import (
	"strings"
	"testing"
)

// Receipt tokens name their key: a new key signs, the old one still opens the links it
// signed until it is dropped; a token of a dropped or unknown key is refused.
func TestReceiptKeysRotate(t *testing.T) {
	old, err := ParseReceiptKeys([]string{"k1=first-secret-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := ParseReceiptKeys([]string{"k2=second-secret-0123456789", "k1=first-secret-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	live := old.Sign("inv-1")
	if !strings.HasPrefix(live, "k1.") || !rotated.Verify("inv-1", live) {
		t.Fatalf("a live link %q is refused after the rotation", live)
	}
	if tok := rotated.Sign("inv-1"); !strings.HasPrefix(tok, "k2.") || old.Verify("inv-1", tok) || !rotated.Verify("inv-1", tok) {
		t.Errorf("the new key's token %q", tok)
	}
	dropped, _ := ParseReceiptKeys([]string{"k2=second-secret-0123456789"})
	if dropped.Verify("inv-1", live) || rotated.Verify("inv-2", live) || rotated.Verify("inv-1", strings.TrimPrefix(live, "k1.")) {
		t.Error("a dropped key, another invoice or a bare MAC verifies")
	}
	for _, bad := range [][]string{nil, {"nokey"}, {"k1=short"}, {"k 1=long-enough-secret-000"}, {"a=long-enough-secret-000", "a=long-enough-secret-111"}} {
		if _, err := ParseReceiptKeys(bad); err == nil {
			t.Errorf("ParseReceiptKeys(%q) took it", bad)
		} else if strings.Contains(err.Error(), "secret-") {
			t.Errorf("the error shows a secret: %v", err)
		}
	}
}
