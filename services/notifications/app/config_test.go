package app_test

import (
	"strings"
	"testing"

	"github.com/hangar/hangar/services/notifications/app"
)

// Issue 31: every e-mail went out from no-reply@hangar.example, named support@hangar.example
// and linked to http://localhost:8080 unless the deployment thought to set them. Outside
// development mode notifications now refuses to start without them, naming each, and
// refuses placeholders (a reserved example domain) and a store URL that is not https.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestRefusesToStartWithoutTheStoresDetailsOutsideDevelopment(t *testing.T) {
	t.Setenv("HANGAR_DEV_MODE", "false")
	names := []string{"MAIL_FROM", "MAIL_MESSAGE_ID_DOMAIN", "STORE_BASE_URL", "SUPPORT_EMAIL"}
	for _, n := range names {
		t.Setenv(n, "")
	}
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), strings.Join(names, ", ")+" must be set") {
		t.Fatalf("LoadConfig = %v, want a refusal naming %v", err, names)
	}
	t.Setenv("MAIL_FROM", "Hangar <no-reply@hangar-avionics.ie>")
	t.Setenv("MAIL_MESSAGE_ID_DOMAIN", "mail.hangar-avionics.ie")
	t.Setenv("STORE_BASE_URL", "https://store.hangar-avionics.ie")
	t.Setenv("SUPPORT_EMAIL", "support@hangar-avionics.ie")
	if c, err := app.LoadConfig(); err != nil || c.StoreURL != "https://store.hangar-avionics.ie" {
		t.Fatalf("LoadConfig with the details = %+v, %v", c, err)
	}
	for name, bad := range map[string]string{
		"STORE_BASE_URL": "http://store.hangar-avionics.ie",
		"SUPPORT_EMAIL":  "support@shop.example.com",
		"MAIL_FROM":      "Hangar <no-reply>",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, bad)
			if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), name+"=") {
				t.Errorf("%s=%q: %v, want a refusal naming it", name, bad, err)
			}
		})
	}
	t.Setenv("HANGAR_DEV_MODE", "true")
	for _, n := range names {
		t.Setenv(n, "")
	}
	if c, err := app.LoadConfig(); err != nil || c.SupportEmail != "support@hangar.example" || c.StoreURL != "http://localhost:8080" {
		t.Fatalf("development mode = %+v, %v, want the development values", c, err)
	}
}
