package ports

import (
	"context"

	"google.golang.org/protobuf/proto"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

func linkedToProto(a domain.LinkedAccount) *identityv1.LinkedAccount {
	return &identityv1.LinkedAccount{JeppAccountId: a.JeppAccountID, Username: a.Username, LinkedAvionics: proto.Bool(a.LinkedAvionics)}
}

func (s *GRPC) ListLinkedAccounts(ctx context.Context, req *identityv1.ListLinkedAccountsRequest) (*identityv1.ListLinkedAccountsResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	accts, err := s.svc.LinkedAccounts(ctx, me, req.GetAccountUuid())
	if err != nil {
		return nil, err
	}
	out := &identityv1.ListLinkedAccountsResponse{Accounts: make([]*identityv1.LinkedAccount, 0, len(accts))}
	for _, a := range accts {
		out.Accounts = append(out.Accounts, linkedToProto(a))
	}
	return out, nil
}

func (s *GRPC) LinkAvionics(ctx context.Context, req *identityv1.LinkAvionicsRequest) (*identityv1.LinkAvionicsResponse, error) {
	me, err := s.me(ctx)
	if err != nil {
		return nil, err
	}
	a, err := s.svc.LinkAvionics(ctx, me, req.GetAccountUuid(), req.GetJeppAccountId())
	if err != nil {
		return nil, err
	}
	return &identityv1.LinkAvionicsResponse{Status: "ok", Account: linkedToProto(a)}, nil
}
