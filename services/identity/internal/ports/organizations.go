package ports

import (
	"context"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// Organizations implements identityv1.OrganizationServiceServer: ProvisionOrganization is
// gRPC only (no gateway route; the gRPC port is reachable only inside the cluster),
// AddMember is also POST /org/api/members.
type Organizations struct {
	identityv1.UnimplementedOrganizationServiceServer
	svc *iapp.Service
}

// NewOrganizations serves svc's organizations.
func NewOrganizations(svc *iapp.Service) *Organizations { return &Organizations{svc: svc} }

// ProvisionOrganization answers (creating when needed) the organization an account owns.
func (o *Organizations) ProvisionOrganization(ctx context.Context, req *identityv1.ProvisionOrganizationRequest) (*identityv1.ProvisionOrganizationResponse, error) {
	org, created, err := o.svc.ProvisionOrganization(ctx, req.GetOwnerAccountUuid(), req.GetName())
	if err != nil {
		return nil, err
	}
	return &identityv1.ProvisionOrganizationResponse{OrganizationUuid: org.UUID, OrganizationAccount: org.AccountUUID, Name: org.Name, Created: created}, nil
}

// AddMember adds a new person to the caller's organization.
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
	p, err := o.svc.AddMember(ctx, me, req.GetOrganizationAccount(), req.GetEmail(), req.GetRoles())
	if err != nil {
		return nil, err
	}
	return &identityv1.AddMemberResponse{Status: "ok", User: userInfo(p)}, nil
}
