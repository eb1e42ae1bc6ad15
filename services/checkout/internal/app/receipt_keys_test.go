package app

import (
	"strings"
	"testing"
	"time"
)

// Receipt tokens name their key: a new key signs, the old one still opens the links it
// signed until it is dropped; a token of a dropped or unknown key is refused.
func TestReceiptKeysRotate(t *testing.T) {
	t.Parallel()
	old, err := ParseReceiptKeys([]string{"k1=first-secret-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := ParseReceiptKeys([]string{"k2=second-secret-0123456789", "k1=first-secret-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	exp := now.Add(ReceiptTokenTTL)
	live := old.Sign("inv-1", exp)
	if !strings.HasPrefix(live, "k1.") || !rotated.Verify("inv-1", live, now) {
		t.Fatalf("a live link %q is refused after the rotation", live)
	}
	if tok := rotated.Sign("inv-1", exp); !strings.HasPrefix(tok, "k2.") || old.Verify("inv-1", tok, now) || !rotated.Verify("inv-1", tok, now) {
		t.Errorf("the new key's token %q", tok)
	}
	dropped, _ := ParseReceiptKeys([]string{"k2=second-secret-0123456789"})
	if dropped.Verify("inv-1", live, now) || rotated.Verify("inv-2", live, now) || rotated.Verify("inv-1", strings.TrimPrefix(live, "k1."), now) {
		t.Error("a dropped key, another invoice or a bare MAC verifies")
	}
	// The expiry is signed: a lapsed token is refused, and so is one whose expiry was moved.
	if rotated.Verify("inv-1", live, exp) {
		t.Error("a token is good at its expiry")
	}
	parts := strings.Split(live, ".")
	if moved := parts[0] + "." + "9999999999" + "." + parts[2]; rotated.Verify("inv-1", moved, now) {
		t.Error("a token with a moved expiry verifies")
	}
	for _, bad := range [][]string{nil, {"nokey"}, {"k1=short"}, {"k 1=long-enough-secret-000"}, {"a=long-enough-secret-000", "a=long-enough-secret-111"}} {
		if _, err := ParseReceiptKeys(bad); err == nil {
			t.Errorf("ParseReceiptKeys(%q) took it", bad)
		} else if strings.Contains(err.Error(), "secret-") {
			t.Errorf("the error shows a secret: %v", err)
		}
	}
}
