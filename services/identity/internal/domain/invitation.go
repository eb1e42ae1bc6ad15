package domain

import (
	"net/url"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// LinkInvitation is the purpose of an invitation's link (the password-link event carries
// it, so notifications mails it as an invitation).
const LinkInvitation = "invitation"

// InvitationPath is the store page an invitation's link opens; the token is in the
// fragment, as a set-password link's is, so it stays out of access logs and Referers.
const InvitationPath = "/account/invitation"

// InvitationLinkPath answers the path (with fragment) of an invitation carrying token.
func InvitationLinkPath(token string) string {
	return InvitationPath + "#" + url.Values{"token": {token}}.Encode()
}

// Invitation is an organization's invitation of an e-mail address, stored by its token's
// hash (never the token). Nothing exists in the invitee's name until they accept it.
type Invitation struct {
	Hash       []byte
	Org        Organization
	Email      string
	Roles      []Role
	InvitedBy  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	AcceptedAt time.Time // zero: open
}

// Usable reports whether the invitation can still be accepted at now.
func (i Invitation) Usable(now time.Time) bool {
	return singleUseOpen(i.AcceptedAt, i.ExpiresAt, now)
}

// Messages of the invitations.
const (
	MsgInvitationSent    = "If this address can receive e-mail, an invitation to join the organization is on its way. Nothing is created until it is accepted."
	MsgInvitationInvalid = "This invitation has expired or has already been used. Please ask your organization's administrator for a new one."
	MsgInvitationOther   = "This invitation was sent to another e-mail address. Log out, then open the link again to accept it with that address."
	MsgInvitationLogin   = "An account already exists for this e-mail address. Log in to accept the invitation."
)

// ErrInvitationInvalid answers a token that is unknown, accepted or expired: the same for
// each.
var ErrInvitationInvalid = errs.Field("token", MsgInvitationInvalid)

// Acceptance is who accepts an invitation: an existing account (AccountUUID), or, when
// that is empty, New, created with the events Events builds from its id.
type Acceptance struct {
	AccountUUID string
	New         Account
	Events      func(id string) ([]kafka.Event, error)
}
