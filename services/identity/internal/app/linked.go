package app

import (
	"context"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// LinkedAccounts answers the partner accounts linked to accountUUID, which the caller must
// be allowed to see (their own, or a member of an organization they administer).
func (s *Service) LinkedAccounts(ctx context.Context, caller domain.Profile, accountUUID string) ([]domain.LinkedAccount, error) {
	p, err := s.Visible(ctx, caller, strings.TrimSpace(accountUUID))
	if err != nil {
		return nil, err
	}
	return s.store.LinkedAccounts(ctx, p.Account.UUID)
}

// LinkAvionics links accountUUID's avionics databases to its partner account jeppAccountID.
func (s *Service) LinkAvionics(ctx context.Context, caller domain.Profile, accountUUID, jeppAccountID string) (domain.LinkedAccount, error) {
	p, err := s.Visible(ctx, caller, strings.TrimSpace(accountUUID))
	if err != nil {
		return domain.LinkedAccount{}, err
	}
	id := strings.TrimSpace(jeppAccountID)
	if id == "" {
		return domain.LinkedAccount{}, errs.Field("jeppAccountId", "a partner account is required")
	}
	return s.store.LinkAvionics(ctx, p.Account.UUID, id, s.now())
}
