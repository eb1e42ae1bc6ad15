package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// ReceiptKeys sign the receipt access tokens (the cookie of the browser that paid): the
// first key signs, every key verifies, and a token names its key's id, so a new key is put
// first and the old one kept until the links it signed have lapsed (rotation without
// breaking a live receipt link). Their own keys: knowing the quote key gives no receipt.
type ReceiptKeys []ReceiptKey

// ReceiptKey is one key with its id.
type ReceiptKey struct {
	ID     string
	Secret []byte
}

// ParseReceiptKeys reads "id=secret,id2=secret2" (CHECKOUT_RECEIPT_KEYS as a list). An id
// is letters and digits; a secret at least 16 characters.
func ParseReceiptKeys(items []string) (ReceiptKeys, error) {
	var out ReceiptKeys
	seen := map[string]bool{}
	for _, it := range items {
		id, secret, ok := strings.Cut(strings.TrimSpace(it), "=")
		id = strings.TrimSpace(id)
		if !ok || id == "" || strings.ContainsFunc(id, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			return nil, fmt.Errorf("CHECKOUT_RECEIPT_KEYS: want id=secret with a letters-and-digits id, got %q", redact(it))
		}
		if len(secret) < 16 {
			return nil, fmt.Errorf("CHECKOUT_RECEIPT_KEYS: the secret of key %q is shorter than 16 characters", id)
		}
		if seen[id] {
			return nil, fmt.Errorf("CHECKOUT_RECEIPT_KEYS: key id %q is used twice", id)
		}
		seen[id] = true
		out = append(out, ReceiptKey{ID: id, Secret: []byte(secret)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("CHECKOUT_RECEIPT_KEYS: no key")
	}
	return out, nil
}

func redact(item string) string {
	if id, _, ok := strings.Cut(item, "="); ok {
		return id + "=…"
	}
	return "…"
}

func (k ReceiptKey) sign(invoiceID string) string {
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("receipt|" + invoiceID))
	return k.ID + "." + hex.EncodeToString(m.Sum(nil))[:40]
}

// Sign answers the token of an invoice under the first key ("" without keys).
func (ks ReceiptKeys) Sign(invoiceID string) string {
	if len(ks) == 0 {
		return ""
	}
	return ks[0].sign(invoiceID)
}

// Verify reports whether token is the invoice's under the key it names.
func (ks ReceiptKeys) Verify(invoiceID, token string) bool {
	id, _, ok := strings.Cut(token, ".")
	if !ok {
		return false
	}
	for _, k := range ks {
		if k.ID == id {
			return hmac.Equal([]byte(token), []byte(k.sign(invoiceID)))
		}
	}
	return false
}
