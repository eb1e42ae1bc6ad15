package adapters

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
)

// Identity asks identity who an account's group parent is. Payments keeps no copy of the
// account tree: identity owns it.
type Identity struct {
	c identityv1.IdentityServiceClient
}

// NewIdentity uses conn, a client connection to identity (auth.IdentityClient's chain).
func NewIdentity(conn grpc.ClientConnInterface) *Identity {
	return &Identity{c: identityv1.NewIdentityServiceClient(conn)}
}

// ParentOf answers the group parent of account as the caller of ctx may see it: identity's
// users/info answers a child to its parent and hides it (NOT_FOUND) from a stranger, so ""
// then. The caller's session goes along, so identity decides who may look.
func (i *Identity) ParentOf(ctx context.Context, account string) (string, error) {
	resp, err := i.c.GetUserInfo(auth.Outgoing(ctx), &identityv1.GetUserInfoRequest{Id: account})
	switch status.Code(err) {
	case codes.OK:
		return resp.GetUser().GetParentUuid(), nil
	case codes.NotFound, codes.PermissionDenied, codes.Unauthenticated:
		return "", nil
	}
	return "", errs.Wrap(errs.Unavailable, err, "accounts are unavailable; try again")
}
