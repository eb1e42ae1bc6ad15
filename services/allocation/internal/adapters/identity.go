package adapters

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// Directory asks identity about the caller's organization, on the caller's behalf (their
// session travels with the call, so identity applies its own rules: admins only).
type Directory struct {
	client  identityv1.IdentityServiceClient
	timeout time.Duration
}

// NewDirectory reads identity over conn.
func NewDirectory(conn grpc.ClientConnInterface) *Directory {
	return &Directory{client: identityv1.NewIdentityServiceClient(conn), timeout: 5 * time.Second}
}

// maxMembers bounds one listing; an organization larger than this is listed in part.
const maxMembers = 5000

// Members answers every user of the caller's organization, sorted by e-mail.
func (d *Directory) Members(ctx context.Context) ([]domain.Member, error) {
	ctx, cancel := context.WithTimeout(auth.Outgoing(ctx), d.timeout)
	defer cancel()
	var out []domain.Member
	for offset := int32(0); offset < maxMembers; offset += 100 {
		resp, err := d.client.ListUsers(ctx, &identityv1.ListUsersRequest{Limit: 100, Offset: offset, Field: "email", Direction: "asc"})
		if err != nil {
			if st, ok := status.FromError(err); ok {
				return nil, errs.FromStatus(st)
			}
			return nil, errs.Wrap(errs.Unavailable, err, "identity is unavailable")
		}
		for _, u := range resp.GetUsers() {
			out = append(out, domain.Member{AccountUUID: u.GetAccountUuid(), Email: u.GetEmail(), Roles: u.GetRoles()})
		}
		if len(resp.GetUsers()) < 100 || int32(len(out)) >= resp.GetTotal() {
			break
		}
	}
	return out, nil
}

// IsBusiness answers whether identity knows the e-mail as a business buyer (the dev seed
// waits for identity's own seed of the demo organization's owner). Identity gives an
// account id to that account's own session only, so the id is not asked for here.
func (d *Directory) IsBusiness(ctx context.Context, email string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.client.IsBusiness(ctx, &identityv1.IsBusinessRequest{Email: email})
	if err != nil {
		return false, err
	}
	return resp.GetIsbiz(), nil
}
