package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// Issue 41: the card-fields origin's tokenize answered 503 for a NUL in the card-holder
// name or the postal code (PostgreSQL 22021) and took a 9,000-character name. Each is now
// 400 naming the field; a card with ordinary fields is still tokenised.
func TestTokenizeRefusesControlCharactersAndOverlongFieldsByName(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	card := func(name, postal string) map[string]string {
		return map[string]string{"number": gateway.CardVisaOK, "cvv": cvvOf(gateway.CardVisaOK), "expirationDate": "12/2031",
			"cardholderName": name, "postalCode": postal}
	}
	for _, tc := range []struct {
		what, name, postal, field string
	}{
		{"a NUL in the name", "Amelia\x00Earhart", "94105", "cardholderName"},
		{"a NUL in the postal code", "Amelia Earhart", "941\x0005", "postalCode"},
		{"a newline in the name", "Amelia\nTOTAL: $0.00", "94105", "cardholderName"},
		{"a 9,000-character name", strings.Repeat("A", 9000), "94105", "cardholderName"},
		{"a 200-character postal code", "Amelia Earhart", strings.Repeat("9", 200), "postalCode"},
	} {
		code, body := r.postFields(t, "/api/tokenize", card(tc.name, tc.postal))
		if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body), tc.field) {
			t.Errorf("%s = %d %v, want 400 naming %s", tc.what, code, body, tc.field)
		}
	}
	if code, body := r.postFields(t, "/api/tokenize", card("Amelia Earhart", "94105")); code != 200 || body["nonce"] == "" {
		t.Errorf("ordinary fields = %d %v, want a nonce", code, body)
	}
}
