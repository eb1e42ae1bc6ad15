package app_test

import (
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/app"
)

// Issue 26: CHECKOUT_QUOTE_KEY defaulted to dev-only-quote-key, which signed the receipt
// cookies too. Outside development mode checkout now refuses to start without its quote
// key and its receipt keys, naming them; with the human verification on, without its secret.
func TestRefusesToStartWithoutItsKeysOutsideDevelopment(t *testing.T) {
	t.Setenv("HANGAR_DEV_MODE", "false")
	t.Setenv("CHECKOUT_QUOTE_KEY", "")
	t.Setenv("CHECKOUT_RECEIPT_KEYS", "")
	_, err := app.LoadConfig()
	if err == nil || !strings.Contains(err.Error(), "CHECKOUT_QUOTE_KEY") || !strings.Contains(err.Error(), "CHECKOUT_RECEIPT_KEYS") {
		t.Fatalf("LoadConfig = %v, want a refusal naming both keys", err)
	}
	t.Setenv("CHECKOUT_QUOTE_KEY", "quote-key-from-a-secret")
	t.Setenv("CHECKOUT_RECEIPT_KEYS", "r1=receipt-key-from-a-secret")
	if _, err := app.LoadConfig(); err != nil {
		t.Fatalf("LoadConfig with the keys = %v", err)
	}
	t.Setenv("CHECKOUT_RECAPTCHA_REQUIRED", "true")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_RECAPTCHA_SECRET") {
		t.Fatalf("human verification on without its secret: %v", err)
	}
	t.Setenv("CHECKOUT_RECAPTCHA_SECRET", "recaptcha-secret-from-a-secret")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_RECAPTCHA_SITE_KEY") {
		t.Fatalf("human verification on without the widget's site key: %v", err)
	}
	t.Setenv("CHECKOUT_RECAPTCHA_SITE_KEY", "site-key")
	if _, err := app.LoadConfig(); err != nil {
		t.Fatalf("human verification with its secret and site key: %v", err)
	}
}
