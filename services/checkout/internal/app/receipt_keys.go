package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// ReceiptTokenTTL is how long a receipt token opens its receipt: the cookie of the browser
// that paid and the link in the receipt e-mail are one token, so the buyer can reopen the
// e-mail (and print the invoice) for a month, from any browser.
const ReceiptTokenTTL = 30 * 24 * time.Hour

func (k ReceiptKey) sign(invoiceID string, exp int64) string {
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("receipt|" + invoiceID + "|" + strconv.FormatInt(exp, 10)))
	return k.ID + "." + strconv.FormatInt(exp, 10) + "." + hex.EncodeToString(m.Sum(nil))[:40]
}

// Sign answers the token of an invoice under the first key, good until exp ("" without
// keys): "keyid.unixexpiry.mac".
func (ks ReceiptKeys) Sign(invoiceID string, exp time.Time) string {
	if len(ks) == 0 {
		return ""
	}
	return ks[0].sign(invoiceID, exp.Unix())
}

// Verify reports whether token is the invoice's under the key it names and has not
// expired at now.
func (ks ReceiptKeys) Verify(invoiceID, token string, now time.Time) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || now.Unix() >= exp {
		return false
	}
	for _, k := range ks {
		if k.ID == parts[0] {
			return hmac.Equal([]byte(token), []byte(k.sign(invoiceID, exp)))
		}
	}
	return false
}
