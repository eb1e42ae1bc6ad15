package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// The one password policy: length, not a known breached or trivial password, not the
// e-mail; no composition rules (a long all-lowercase passphrase is fine).
func TestPasswordPolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		password string
		ok       bool
	}{
		{"blue skies over the hangar", true},
		{"correcthorsebatterystaple", true},
		{"Password123", false},
		{"qwertyuiop", false},
		{"zzzzzzzzzz", false},
		{"jane.doe", false}, // the e-mail's local part
		{"short", false},
		{strings.Repeat("a", 200), false},
	} {
		if got := domain.PasswordPolicyProblem(c.password, "jane.doe@example.com") == ""; got != c.ok {
			t.Errorf("%q accepted = %v, want %v", c.password, got, c.ok)
		}
	}
}

func TestNewPasswordInputNamesEachField(t *testing.T) {
	t.Parallel()
	token, _, err := domain.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	err = domain.NewPasswordInput{Token: token, Password: "blue skies over the hangar", ConfirmPassword: "blue skies"}.Validate("a@example.com")
	if fs := fieldsOf(err); len(fs) != 1 || fs[0].Field != "confirmPassword" || fs[0].Message != "Passwords do not match" {
		t.Errorf("mismatch: %v", err)
	}
	err = domain.NewPasswordInput{Token: "nope", Password: "blue skies over the hangar", ConfirmPassword: "blue skies over the hangar"}.Validate("")
	if fs := fieldsOf(err); len(fs) != 1 || fs[0].Field != "token" {
		t.Errorf("bad token: %v", err)
	}
}

// The token travels in the fragment, never in the path or query a server would log.
func TestLinkPathKeepsTheTokenInTheFragment(t *testing.T) {
	t.Parallel()
	p := domain.LinkPath(domain.LinkWelcome, "TOKEN")
	if !strings.HasPrefix(p, domain.SetPasswordPath+"#") || !strings.Contains(p, "token=TOKEN") || !strings.Contains(p, "welcome=1") {
		t.Errorf("welcome link = %q", p)
	}
	if p := domain.LinkPath(domain.LinkReset, "TOKEN"); strings.Contains(p, "welcome") || strings.Index(p, "TOKEN") < strings.Index(p, "#") {
		t.Errorf("reset link = %q", p)
	}
}

func fieldsOf(err error) []errs.FieldError {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	return e.Fields
}
