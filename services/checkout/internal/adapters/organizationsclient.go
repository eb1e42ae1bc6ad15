package adapters

import (
	"context"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
)

// ProvisionOrganization answers the account of the organization ownerAccountID owns,
// creating it with name when there is none (app.Organizations).
func (i *IdentityClient) ProvisionOrganization(ctx context.Context, ownerAccountID, name string) (string, error) {
	resp, err := i.o.ProvisionOrganization(ctx, &identityv1.ProvisionOrganizationRequest{OwnerAccountUuid: ownerAccountID, Name: name})
	if err != nil {
		return "", remoteErr(err, "organization")
	}
	return resp.GetOrganizationAccount(), nil
}
