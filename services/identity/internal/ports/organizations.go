package ports

import (
	"context"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// Organizations implements identityv1.OrganizationServiceServer (gRPC only: it has no
// gateway route, and the gRPC port is reachable only inside the cluster).
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
