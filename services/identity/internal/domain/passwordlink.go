package domain

import (
	_ "embed"
	"net/url"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Purposes of a password link.
const (
	// LinkWelcome chooses the first password of an account created without one (at
	// checkout): the welcome e-mail carries it.
	LinkWelcome = "welcome"
	// LinkReset chooses a new password after "Forgot password?".
	LinkReset = "reset"
)

// LinkPolicy is how long each kind of link lives.
type LinkPolicy struct {
	WelcomeTTL time.Duration
	ResetTTL   time.Duration
	// InvitationTTL is an organization's invitation's; zero is DefaultInvitationTTL.
	InvitationTTL time.Duration
}

// DefaultInvitationTTL is how long an invitation to an organization can be accepted.
const DefaultInvitationTTL = 7 * 24 * time.Hour

// TTL answers the life of a link of purpose.
func (p LinkPolicy) TTL(purpose string) time.Duration {
	if purpose == LinkInvitation {
		if p.InvitationTTL > 0 {
			return p.InvitationTTL
		}
		return DefaultInvitationTTL
	}
	if purpose == LinkWelcome {
		return p.WelcomeTTL
	}
	return p.ResetTTL
}

// SetPasswordPath is the store page a link opens; the token is in the fragment, which a
// browser never sends to a server nor in a Referer, so it stays out of access logs.
const SetPasswordPath = "/account/set-password"

// LinkPath answers the path (with fragment) of a link carrying token.
func LinkPath(purpose, token string) string {
	v := url.Values{"token": {token}}
	if purpose == LinkWelcome {
		v.Set("welcome", "1")
	}
	return SetPasswordPath + "#" + v.Encode()
}

// PasswordLink is a stored link: its token's hash, never the token.
type PasswordLink struct {
	AccountUUID string
	Email       string
	Kind        Kind
	Purpose     string
	ExpiresAt   time.Time
	UsedAt      time.Time // zero: not used
}

// NewLink is a password link to store: the hash of its token, never the token.
type NewLink struct {
	Hash      []byte
	Purpose   string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// AccountLink is a password link to store for an account.
type AccountLink struct {
	AccountUUID string
	Link        NewLink
}

// ErrLinkInvalid answers a token that is unknown, used or expired: the same for each, so
// the answer tells nothing more than that the link does not work.
var ErrLinkInvalid = errs.Field("token", MsgLinkInvalid)

// Usable reports whether the link can still set a password at now.
func (l PasswordLink) Usable(now time.Time) bool {
	return singleUseOpen(l.UsedAt, l.ExpiresAt, now)
}

// Messages of the password pages.
const (
	MsgResetRequested = "If an account exists for that email address, we have sent it a link to choose a new password. The link is valid for one hour."
	MsgLinkInvalid    = "This link has expired or has already been used. Please ask for a new one."
	MsgPasswordCommon = "This password is too common or has appeared in a data breach. Please choose another."
)

//go:embed common_passwords.txt
var commonPasswordsText string

var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(commonPasswordsText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[strings.ToLower(l)] = true
		}
	}
	return m
}()

// CommonPassword reports whether p is a known breached or trivial password: on the
// embedded list, one character repeated, or the account's e-mail (or its local part).
func CommonPassword(p, email string) bool {
	lp := strings.ToLower(p)
	if commonPasswords[lp] {
		return true
	}
	if r := []rune(lp); len(r) > 0 && strings.Count(lp, string(r[0])) == len(r) {
		return true
	}
	email = strings.ToLower(email)
	if email != "" && (lp == email || lp == strings.SplitN(email, "@", 2)[0]) {
		return true
	}
	return false
}

// NewPasswordInput is the set-password form of a link.
type NewPasswordInput struct {
	Token, Password, ConfirmPassword string
}

// Validate answers every field error of the form at once (not the token's: that needs
// the store). The policy is the one stated on the page: at least MinPasswordLength
// characters, not a known breached or trivial password; no composition rules (NIST SP
// 800-63B §5.1.1.2).
func (in NewPasswordInput) Validate(email string) error {
	var fe []errs.FieldError
	if in.Token == "" || !PlausibleToken(in.Token) {
		fe = append(fe, errs.FieldError{Field: "token", Message: MsgLinkInvalid})
	}
	if msg := PasswordPolicyProblem(in.Password, email); msg != "" {
		fe = append(fe, errs.FieldError{Field: "password", Message: msg})
	}
	if in.Password != in.ConfirmPassword {
		fe = append(fe, errs.FieldError{Field: "confirmPassword", Message: MsgPasswordsDiffer})
	}
	return fieldErrors(fe)
}

func fieldErrors(fe []errs.FieldError) error {
	if len(fe) == 0 {
		return nil
	}
	msgs := make([]string, len(fe))
	for i, f := range fe {
		msgs[i] = f.Message
	}
	return &errs.Error{Code: errs.Invalid, Message: strings.Join(msgs, " "), Fields: fe}
}

// PasswordPolicyProblem is the store's one password policy, for every form that sets a
// password: the length rules, then not a known breached or trivial password (nor the
// account's e-mail). It answers the message to show, or "".
func PasswordPolicyProblem(p, email string) string {
	if msg := PasswordProblem(p); msg != "" {
		return msg
	}
	if CommonPassword(p, email) {
		return MsgPasswordCommon
	}
	return ""
}
