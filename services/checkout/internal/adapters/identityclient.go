package adapters

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/kitclient"
)

// IdentityKit is the outbound chain of calls to identity (the platform's, shared with
// session resolution).
func IdentityKit(reg prometheus.Registerer) kitclient.Config { return auth.IdentityClient(reg) }

// IdentityClient is identity as checkout uses it beyond sessions.
type IdentityClient struct {
	c identityv1.IdentityServiceClient
	o identityv1.OrganizationServiceClient
}

// NewIdentityClient uses conn (a client connection to identity).
func NewIdentityClient(conn grpc.ClientConnInterface) *IdentityClient {
	return &IdentityClient{c: identityv1.NewIdentityServiceClient(conn), o: identityv1.NewOrganizationServiceClient(conn)}
}

// ProvisionAccount answers the account of an e-mail, creating it when there is none, and
// whether a buyer who is not logged in may buy for it (new, or never activated).
func (i *IdentityClient) ProvisionAccount(ctx context.Context, email string, isEU bool) (string, bool, error) {
	resp, err := i.c.ProvisionAccount(ctx, &identityv1.ProvisionAccountRequest{Email: email, IsEu: isEU})
	if err != nil {
		return "", false, remoteErr(err, "account")
	}
	return resp.GetAccountUuid(), resp.GetCreated() || resp.GetPasswordless(), nil
}

// MilitaryEligible answers whether identity holds the buyer (e-mail, or account) as
// military-eligible.
func (i *IdentityClient) MilitaryEligible(ctx context.Context, email, accountID string) (bool, error) {
	resp, err := i.c.GetMilitaryEligibility(ctx, &identityv1.GetMilitaryEligibilityRequest{Email: email, AccountUuid: accountID})
	if err != nil {
		return false, remoteErr(err, "account")
	}
	return resp.GetEligible(), nil
}
