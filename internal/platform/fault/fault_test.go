package fault

import (
	"os"
	"path/filepath"
	"testing"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// An armed point fires once, whichever replica reaches it first; a disarmed one, never.
func TestPointFiresOncePerArming(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	died := 0
	vars := env(map[string]string{DirVar: dir, "HANGAR_DEV_MODE": "true"})
	a := pointFrom(vars, PaymentsAfterCapture, func() { died++ })
	b := pointFrom(vars, PaymentsAfterCapture, func() { died++ })
	_ = a("k")
	if died != 0 {
		t.Fatalf("a point not armed fired")
	}
	if err := os.WriteFile(filepath.Join(dir, PaymentsAfterCapture), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = a("k")
	_ = b("k")
	_ = a("k")
	if died != 1 {
		t.Fatalf("armed once, fired %d times; want 1", died)
	}
	if _, err := os.Stat(filepath.Join(dir, PaymentsAfterCapture)); !os.IsNotExist(err) {
		t.Fatalf("the arming file is still there after firing: %v", err)
	}
}

// Outside development mode (or without the directory) there is no hook at all.
func TestPointNeedsDevModeAndADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CheckoutAfterCharge), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, vars := range map[string]map[string]string{
		"production": {DirVar: dir, "HANGAR_DEV_MODE": "false"},
		"no dir":     {"HANGAR_DEV_MODE": "true"},
	} {
		if h := pointFrom(env(vars), CheckoutAfterCharge, func() { t.Fatalf("%s: fired", name) }); h != nil {
			t.Errorf("%s: hook = non-nil; want nil", name)
		}
	}
}
