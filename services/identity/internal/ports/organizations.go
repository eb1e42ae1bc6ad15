package ports

import (
	"context"
	"time"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Organizations implements identityv1.OrganizationServiceServer: ProvisionOrganization is
// gRPC only (no gateway route; the gRPC port is reachable only inside the cluster),
// AddMember is also POST /org/api/members, the invitations' routes /org/api/invitations/*.
type Organizations struct {
	identityv1.UnimplementedOrganizationServiceServer
	svc            *iapp.Service
	trustedProxies int
}

// NewOrganizations serves svc's organizations; trustedProxies is as NewGRPC's.
func NewOrganizations(svc *iapp.Service, trustedProxies int) *Organizations {
	return &Organizations{svc: svc, trustedProxies: trustedProxies}
}

// ProvisionOrganization answers (creating when needed) the organization an account owns.
func (o *Organizations) ProvisionOrganization(ctx context.Context, req *identityv1.ProvisionOrganizationRequest) (*identityv1.ProvisionOrganizationResponse, error) {
	org, created, err := o.svc.ProvisionOrganization(ctx, req.GetOwnerAccountUuid(), req.GetName())
	if err != nil {
		return nil, err
	}
	return &identityv1.ProvisionOrganizationResponse{OrganizationUuid: org.UUID, OrganizationAccount: org.AccountUUID, Name: org.Name, Created: created}, nil
}

// AddMember invites a person to the caller's organization: one answer for every address.
func (o *Organizations) AddMember(ctx context.Context, req *identityv1.AddMemberRequest) (*identityv1.AddMemberResponse, error) {
	c, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	me, err := o.svc.Profile(ctx, c.AccountUUID)
	if errs.CodeOf(err) == errs.NotFound {
		return nil, auth.ErrLoginRequired
	}
	if err != nil {
		return nil, err
	}
	inv, err := o.svc.Invite(ctx, me, c.SessionID, req.GetOrganizationAccount(), req.GetEmail(), req.GetRoles())
	if err != nil {
		return nil, err
	}
	return &identityv1.AddMemberResponse{Status: "invited", Message: domain.MsgInvitationSent,
		ExpiresAt: inv.ExpiresAt.UTC().Format(time.RFC3339)}, nil
}

// GetInvitation answers what the accept page shows of an open invitation.
func (o *Organizations) GetInvitation(ctx context.Context, req *identityv1.GetInvitationRequest) (*identityv1.GetInvitationResponse, error) {
	inv, has, err := o.svc.Invitation(ctx, req.GetToken())
	if err != nil {
		return nil, err
	}
	return &identityv1.GetInvitationResponse{OrganizationName: inv.Org.Name, Email: inv.Email, Roles: roleNames(inv.Roles),
		ExpiresAt: inv.ExpiresAt.UTC().Format(time.RFC3339), HasAccount: has}, nil
}

// AcceptInvitation joins the invitation's organization; a new account is logged in (the
// session cookie is set, as a login's).
func (o *Organizations) AcceptInvitation(ctx context.Context, req *identityv1.AcceptInvitationRequest) (*identityv1.AcceptInvitationResponse, error) {
	var caller *domain.Profile
	if c, ok := auth.CallerFrom(ctx); ok && c.AccountUUID != "" {
		me, err := o.svc.Profile(ctx, c.AccountUUID)
		if err != nil && errs.CodeOf(err) != errs.NotFound {
			return nil, err
		}
		if err == nil {
			caller = &me
		}
	}
	inv, l, err := o.svc.AcceptInvitation(ctx, caller, iapp.AcceptInput{Token: req.GetToken(), Password: req.GetPassword(),
		ConfirmPassword: req.GetConfirmPassword()}, requestOf(ctx, o.trustedProxies))
	if err != nil {
		return nil, err
	}
	account := l.Account.UUID
	if caller != nil {
		account = caller.Account.UUID
	} else {
		setSession(ctx, l, time.Now())
	}
	p, err := o.svc.Profile(ctx, account)
	if err != nil {
		return nil, err
	}
	return &identityv1.AcceptInvitationResponse{Status: "ok", OrganizationName: inv.Org.Name, OrganizationAccount: inv.Org.AccountUUID,
		User: userInfo(p)}, nil
}

func roleNames(rs []domain.Role) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
