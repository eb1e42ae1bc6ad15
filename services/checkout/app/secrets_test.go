package app_test

import (
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/app"
)

// Issue 26: CHECKOUT_QUOTE_KEY defaulted to dev-only-quote-key, which signed the receipt
// cookies too. Outside development mode checkout now refuses to start without its quote
// key and its receipt keys, naming them; with the human verification on, without its secret.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
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
	setStoreDetails(t)
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

// setStoreDetails sets what a deployment must give outside development mode besides keys.
func setStoreDetails(t *testing.T) {
	t.Setenv("CHECKOUT_SALES_CONTACT", "sales@hangar-avionics.ie")
	t.Setenv("CHECKOUT_SELLER_NAME", "Hangar Avionics Teoranta")
	t.Setenv("CHECKOUT_SELLER_ADDRESS", "4 Hangar Lane;Shannon V14 EE06;Ireland")
	t.Setenv("CHECKOUT_SELLER_VAT", "IE6388047V")
}

// Issue 31: the seller printed on every receipt and invoice, and the sales address named
// to buyers, had placeholder defaults (VAT number IE0000000XX) in every deployment.
// Outside development mode checkout now refuses to start without them, naming each, and
// refuses a VAT number without the EU shape and an address that is not one.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestRefusesToStartWithoutTheStoresDetailsOutsideDevelopment(t *testing.T) {
	t.Setenv("HANGAR_DEV_MODE", "false")
	t.Setenv("CHECKOUT_QUOTE_KEY", "quote-key-from-a-secret")
	t.Setenv("CHECKOUT_RECEIPT_KEYS", "r1=receipt-key-from-a-secret")
	for _, name := range []string{"CHECKOUT_SALES_CONTACT", "CHECKOUT_SELLER_NAME", "CHECKOUT_SELLER_ADDRESS", "CHECKOUT_SELLER_VAT"} {
		t.Setenv(name, "")
	}
	_, err := app.LoadConfig()
	if err == nil || !strings.Contains(err.Error(), "CHECKOUT_SALES_CONTACT, CHECKOUT_SELLER_NAME, CHECKOUT_SELLER_ADDRESS, CHECKOUT_SELLER_VAT must be set") {
		t.Fatalf("LoadConfig = %v, want a refusal naming the sales contact and the seller's name, address and VAT number", err)
	}
	setStoreDetails(t)
	c, err := app.LoadConfig()
	if err != nil || c.SellerVAT != "IE6388047V" || c.SellerName != "Hangar Avionics Teoranta" {
		t.Fatalf("LoadConfig with the details = %+v, %v", c, err)
	}
	// The development placeholder is refused outside development mode.
	t.Setenv("CHECKOUT_SELLER_VAT", "IE0000000XX")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_SELLER_VAT must be set") {
		t.Fatalf("the development VAT number in production: %v", err)
	}
	for _, bad := range []string{"0000000XX", "US123456789", "IE", "GB123456789"} {
		t.Setenv("CHECKOUT_SELLER_VAT", bad)
		if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_SELLER_VAT=") {
			t.Errorf("CHECKOUT_SELLER_VAT=%q: %v, want a refusal of its shape", bad, err)
		}
	}
	for _, good := range []string{"EL123456789", "de 123 456 789"} {
		t.Setenv("CHECKOUT_SELLER_VAT", good)
		if _, err := app.LoadConfig(); err != nil {
			t.Errorf("CHECKOUT_SELLER_VAT=%q: %v", good, err)
		}
	}
	t.Setenv("CHECKOUT_SELLER_VAT", "IE6388047V")
	t.Setenv("CHECKOUT_SALES_CONTACT", "sales@hangar.example")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_SALES_CONTACT") {
		t.Errorf("a placeholder sales address in production: %v", err)
	}
	// Development mode keeps documented values, printed as such.
	t.Setenv("HANGAR_DEV_MODE", "true")
	for _, name := range []string{"CHECKOUT_SALES_CONTACT", "CHECKOUT_SELLER_NAME", "CHECKOUT_SELLER_ADDRESS", "CHECKOUT_SELLER_VAT"} {
		t.Setenv(name, "")
	}
	if c, err := app.LoadConfig(); err != nil || c.SellerVAT != "IE0000000XX" || !strings.Contains(c.SellerName, "(development)") {
		t.Fatalf("development mode = %+v, %v", c, err)
	}
}
