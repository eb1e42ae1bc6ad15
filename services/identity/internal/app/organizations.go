package app

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// MsgOrganizationName is checkout's message for a business purchase without one (spec 000
// §5 wording there); identity says the same.
const MsgOrganizationName = "Please enter your organization name."

// OwnerRoles are the roles of an organization's owner created at checkout: as the seeded
// Acme owner's, everything (the owner role) and the aircraft (tail) administration.
var OwnerRoles = []domain.Role{domain.RoleOwner, domain.RoleAircraftAdmin}

// ProvisionOrganization answers the organization whose own account is ownerUUID, creating
// it with name and the account as its owner when there is none (see
// OrganizationStore.ProvisionOrganization). Checkout calls it for a business purchase by a
// buyer in no organization; a retry finds the organization the first call made.
func (s *Service) ProvisionOrganization(ctx context.Context, ownerUUID, name string) (domain.Organization, bool, error) {
	name = strings.Join(strings.Fields(name), " ")
	switch {
	case name == "":
		return domain.Organization{}, false, errs.Field("name", MsgOrganizationName)
	case utf8.RuneCountInString(name) > 200:
		return domain.Organization{}, false, errs.Field("name", "The organization name is at most 200 characters.")
	}
	org, created, err := s.store.ProvisionOrganization(ctx, ownerUUID, name, OwnerRoles)
	if err == nil && created {
		s.log.InfoContext(ctx, "organization created at checkout", "organization", org.UUID, "account", ownerUUID)
	}
	return org, created, err
}

// MemberRoles are the roles an organization's administrator may give a member; owner is
// not one (an organization has the owner checkout made it with).
var MemberRoles = map[domain.Role]bool{domain.RoleMember: true, domain.RoleUserAdmin: true, domain.RoleAircraftAdmin: true, domain.RoleDispatcher: true}

// InviteLimits are how many invitations an organization and one session of its
// administrators may send: a burst a team's onboarding needs, then one every few minutes.
// Both are taken before anything is written (each one statement over every replica), so a
// concurrent burst passes no more than the buckets hold.
type InviteLimits struct{ PerOrganization, PerSession Limiter }

// SetInviteLimits throttles invitations per organization and per session.
func (s *Service) SetInviteLimits(l InviteLimits) { s.invite = l }

// Invite invites email to an organization caller administers (owner or user admin;
// orgAccount names it, else their first such organization) with roles (member when none;
// never owner). Nothing is created in the invitee's name: an invitation (its token's hash)
// is stored and mailed, and the person who reads it accepts it (AcceptInvitation). The
// answer is the same whether or not the address has an account, so the route tells the
// caller nothing about who has one. Throttled per organization and per session.
func (s *Service) Invite(ctx context.Context, caller domain.Profile, session, orgAccount, email string, roles []string) (domain.Invitation, error) {
	var org *domain.Membership
	for i, m := range caller.Memberships {
		if m.IsAdmin() && (orgAccount == "" || m.Org.AccountUUID == orgAccount) {
			org = &caller.Memberships[i]
			break
		}
	}
	if org == nil {
		return domain.Invitation{}, errs.E(errs.Forbidden, "Only organization administrators can add users.")
	}
	give := []domain.Role{}
	for _, r := range roles {
		role := domain.Role(strings.TrimSpace(r))
		if !MemberRoles[role] {
			return domain.Invitation{}, errs.Field("roles", "A member's roles are member, user_admin, aircraft_admin or dispatcher.")
		}
		give = append(give, role)
	}
	if len(give) == 0 {
		give = []domain.Role{domain.RoleMember}
	}
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return domain.Invitation{}, errs.Field("email", "Please enter your email address.")
	}
	if s.invite.PerSession != nil {
		if err := s.invite.PerSession.Allow(ctx, session); err != nil {
			return domain.Invitation{}, err
		}
	}
	if s.invite.PerOrganization != nil {
		if err := s.invite.PerOrganization.Allow(ctx, org.Org.UUID); err != nil {
			return domain.Invitation{}, err
		}
	}
	token, hash, err := domain.NewToken()
	if err != nil {
		return domain.Invitation{}, err
	}
	now := s.now()
	inv := domain.Invitation{Hash: hash, Org: org.Org, Email: email, Roles: give, InvitedBy: caller.Account.UUID,
		CreatedAt: now, ExpiresAt: now.Add(s.pol.Links.TTL(domain.LinkInvitation))}
	b, err := proto.Marshal(&eventsv1.PasswordLinkIssued{Email: email, Purpose: domain.LinkInvitation,
		Link: domain.InvitationLinkPath(token), ExpiresAt: timestamppb.New(inv.ExpiresAt), OrganizationName: org.Org.Name})
	if err != nil {
		return domain.Invitation{}, fmt.Errorf("encode invitation: %w", err)
	}
	// Keyed by the organization: no account exists to key it by.
	ev := kafka.Event{Topic: events.TopicPasswordLinkIssued, Key: org.Org.UUID, Payload: b}
	if err := s.store.CreateInvitation(ctx, inv, []kafka.Event{ev}); err != nil {
		return domain.Invitation{}, err
	}
	s.log.InfoContext(ctx, "member invited", "organization", org.Org.UUID, "by", caller.Account.UUID)
	return inv, nil
}

// Invitation answers the open invitation of token (what the accept page shows) and
// whether its address has an account (the page then asks its reader to log in rather
// than to choose a password). Only the holder of the mailed token learns it.
func (s *Service) Invitation(ctx context.Context, token string) (domain.Invitation, bool, error) {
	if !domain.PlausibleToken(token) {
		return domain.Invitation{}, false, domain.ErrInvitationInvalid
	}
	inv, err := s.store.Invitation(ctx, domain.HashToken(token))
	if err != nil {
		return inv, false, err
	}
	if !inv.Usable(s.now()) {
		return domain.Invitation{}, false, domain.ErrInvitationInvalid
	}
	_, err = s.store.AccountByEmail(ctx, inv.Email)
	if errs.CodeOf(err) == errs.NotFound {
		return inv, false, nil
	}
	return inv, err == nil, err
}

// AcceptInput is an invitation's acceptance: its token and, for an address without an
// account, the password of the account it creates.
type AcceptInput struct {
	Token, Password, ConfirmPassword string
}

// AcceptInvitation joins the invitation's organization. A caller logged in as the invited
// address joins with that account (linking it); anyone else logged in is refused (the
// invitation is for its address). Without a session, an address that has an account must
// log in first (401); one without gets its account now, with the password chosen here,
// and is logged in. Login is the started session, or zero when the caller's own joined.
func (s *Service) AcceptInvitation(ctx context.Context, caller *domain.Profile, in AcceptInput, req Request) (domain.Invitation, Login, error) {
	if !domain.PlausibleToken(in.Token) {
		return domain.Invitation{}, Login{}, domain.ErrInvitationInvalid
	}
	hash := domain.HashToken(in.Token)
	inv, err := s.store.Invitation(ctx, hash)
	if err != nil {
		return inv, Login{}, err
	}
	if !inv.Usable(s.now()) {
		return domain.Invitation{}, Login{}, domain.ErrInvitationInvalid
	}
	if caller != nil {
		if !strings.EqualFold(caller.Account.Email, inv.Email) {
			return domain.Invitation{}, Login{}, errs.E(errs.Forbidden, domain.MsgInvitationOther)
		}
		inv, _, err = s.store.AcceptInvitation(ctx, hash, s.now(), func(domain.Invitation) (domain.Acceptance, error) {
			return domain.Acceptance{AccountUUID: caller.Account.UUID}, nil
		})
		if err == nil {
			s.log.InfoContext(ctx, "invitation accepted", "organization", inv.Org.UUID, "account", caller.Account.UUID)
		}
		return inv, Login{}, err
	}
	if _, err := s.store.AccountByEmail(ctx, inv.Email); err == nil {
		return domain.Invitation{}, Login{}, errs.E(errs.Unauthorized, domain.MsgInvitationLogin)
	} else if errs.CodeOf(err) != errs.NotFound {
		return domain.Invitation{}, Login{}, err
	}
	if err := (domain.NewPasswordInput{Token: in.Token, Password: in.Password, ConfirmPassword: in.ConfirmPassword}).Validate(inv.Email); err != nil {
		return domain.Invitation{}, Login{}, err
	}
	h, err := s.hashPassword(ctx, req.IP, in.Password)
	if errs.CodeOf(err) == errs.Exhausted || errs.CodeOf(err) == errs.Unavailable {
		return domain.Invitation{}, Login{}, err
	}
	if err != nil {
		return domain.Invitation{}, Login{}, errs.Wrap(errs.Internal, err, domain.MsgCreateAccountFailed)
	}
	a := domain.Account{Email: inv.Email, Kind: domain.Individual, PasswordHash: h, CreatedAt: s.now()}
	inv, id, err := s.store.AcceptInvitation(ctx, hash, s.now(), func(domain.Invitation) (domain.Acceptance, error) {
		return domain.Acceptance{New: a, Events: func(id string) ([]kafka.Event, error) { return accountCreated(id, a) }}, nil
	})
	if err != nil {
		return domain.Invitation{}, Login{}, err
	}
	a.UUID = id
	s.log.InfoContext(ctx, "invitation accepted", "organization", inv.Org.UUID, "account", id)
	l, err := s.startSession(ctx, a, req)
	return inv, l, err
}
