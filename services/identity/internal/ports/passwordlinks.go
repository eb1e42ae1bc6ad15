package ports

import (
	"context"
	"time"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// RequestPasswordReset answers the one message for known and unknown addresses.
func (s *GRPC) RequestPasswordReset(ctx context.Context, req *identityv1.RequestPasswordResetRequest) (*identityv1.RequestPasswordResetResponse, error) {
	if err := s.svc.RequestPasswordReset(ctx, req.GetEmail()); err != nil {
		return nil, err
	}
	return &identityv1.RequestPasswordResetResponse{Status: "ok", Message: domain.MsgResetRequested}, nil
}

// SetPassword sets the password of a link's account and sets the session cookie, as a
// login does.
func (s *GRPC) SetPassword(ctx context.Context, req *identityv1.SetPasswordRequest) (*identityv1.SetPasswordResponse, error) {
	l, err := s.svc.SetPassword(ctx, domain.NewPasswordInput{Token: req.GetToken(), Password: req.GetPassword(),
		ConfirmPassword: req.GetConfirmPassword()}, s.request(ctx))
	if err != nil {
		return nil, err
	}
	setSession(ctx, l, time.Now())
	return &identityv1.SetPasswordResponse{Status: "ok", User: user(l.Account)}, nil
}
