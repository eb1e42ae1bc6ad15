// Package human checks the human-verification value a page's widget gave (Google reCAPTCHA
// in production, the development verifier of internal/devhuman in make dev). Checkout's card
// payments, payments' payment-method update and card reader, and identity's login past its
// throttle ask for it.
package human

import (
	"context"
	"strings"
)

// Verifier checks a human-verification value for the client at clientIP: (false, nil) for
// a missing, invalid, expired or reused value; an error when it cannot be checked.
type Verifier interface {
	Verify(ctx context.Context, value, clientIP string) (bool, error)
}

// Dev is the verifier of development without a secret: any non-empty value passes.
type Dev struct{}

// Verify accepts any non-empty value.
func (Dev) Verify(_ context.Context, value, _ string) (bool, error) {
	return strings.TrimSpace(value) != "", nil
}

// Messages of a refused or unchecked value, as checkout's card payments word them.
const (
	// MsgRequired asks for the widget's tick (no value given).
	MsgRequired = "Please verify you are a human."
	// MsgUnavailable answers a value given but refused (expired, reused, forged), on which
	// the pages clear the widget for a new tick, or a verifier that cannot be asked.
	MsgUnavailable = "We are having problems validating your form."
)

// Refused answers the message for a value the verifier refused: none given is a box not
// ticked (MsgRequired), one given but refused is MsgUnavailable.
func Refused(value string) string {
	if strings.TrimSpace(value) == "" {
		return MsgRequired
	}
	return MsgUnavailable
}

// ReasonRequired names an answer that asks for human verification (errs reason): the page
// shows the widget and sends its value with the next attempt.
const ReasonRequired = "HUMAN_VERIFICATION_REQUIRED"

// FromConfig answers the verifier a service configures: nil when verification is off;
// the Recaptcha verifier with a secret; Dev without one (development only: the services'
// configuration refuses a missing secret outside development).
func FromConfig(required bool, cfg RecaptchaConfig) Verifier {
	switch {
	case !required:
		return nil
	case cfg.Secret == "":
		return Dev{}
	default:
		return NewRecaptcha(cfg)
	}
}
