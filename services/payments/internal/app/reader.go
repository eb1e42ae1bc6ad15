package app

import (
	"context"
	"errors"
	"strings"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// requireCardAdmin answers the caller when they hold the credit-card-admin right.
func requireCardAdmin(ctx context.Context) (auth.Caller, error) {
	c, err := auth.Require(ctx)
	if err != nil {
		return c, err
	}
	if !c.IsCreditCardAdmin {
		return c, errs.E(errs.Forbidden, "Only credit-card admins may use the card reader.")
	}
	return c, nil
}

// Readers answers the readers' serial numbers. Like every card-reader route it needs the
// credit-card-admin right (docs/authorization.md): no session 401, anyone else 403 (it
// answered 200 {} to anyone before).
func (s *Service) Readers(ctx context.Context) ([]string, error) {
	if _, err := requireCardAdmin(ctx); err != nil {
		return nil, err
	}
	return s.pol.Readers, nil
}

// RequestReaderVault asks a reader to collect a card for email and answers the context id.
//
// It asks for human verification as card payments do (humanValue): the reader's vault is
// a card verification, which scripts must not drive.
func (s *Service) RequestReaderVault(ctx context.Context, email, reader, humanValue string) (string, error) {
	c, err := requireCardAdmin(ctx)
	if err != nil {
		return "", err
	}
	if msg := s.humanProblem(ctx, humanValue); msg != "" {
		return "", errs.Field("recaptchaValue", msg)
	}
	r, err := domain.NewReaderSession(NewID(), reader, email, c.AccountUUID, s.pol.Readers, s.now(), s.pol.ReaderTimeout)
	if err != nil {
		return "", err
	}
	if err := s.store.StartReaderSession(ctx, r); err != nil {
		return "", err
	}
	s.log.InfoContext(ctx, "card reader vault requested", "reader", reader, "context", r.ContextID)
	return r.ContextID, nil
}

// ReaderResult answers the session's method once the card was presented (nil while waiting).
func (s *Service) ReaderResult(ctx context.Context, contextID string) (*domain.MethodSummary, domain.ReaderSession, error) {
	if _, err := requireCardAdmin(ctx); err != nil {
		return nil, domain.ReaderSession{}, err
	}
	r, err := s.store.ReaderSession(ctx, contextID)
	if err != nil {
		return nil, r, err
	}
	done, err := r.Result(s.now())
	if err != nil || !done {
		return nil, r, err
	}
	m, err := s.store.Method(ctx, r.Token)
	if err != nil {
		return nil, r, err
	}
	return &m, r, nil
}

// PresentCard is what a reader does when a card is presented to it: the card is tokenised
// on the processor's side and vaulted (verified) for the waiting session's customer. In
// production the reader talks to the processor itself; the dev simulator calls this.
func (s *Service) PresentCard(ctx context.Context, reader string, card domain.CardInput) (domain.ReaderSession, error) {
	r, err := s.store.WaitingReaderSession(ctx, reader, s.now())
	if err != nil {
		return r, errs.E(errs.NotFound, "No card request is waiting on reader %s.", reader)
	}
	fail := func(msg string) (domain.ReaderSession, error) {
		r.Status, r.Message = domain.ReaderFailed, msg
		if err := s.store.FinishReaderSession(ctx, r); err != nil {
			return r, err
		}
		return r, nil
	}
	n, err := s.gw.Tokenize(ctx, card)
	if err != nil {
		if errs.CodeOf(err) == errs.Invalid {
			return fail(domain.CustomerMessage(domain.MsgInvalidFields))
		}
		return r, s.gatewayErr(ctx, "reader tokenize", err)
	}
	// The reader's vault is a verification: counted against the card, the reader and the
	// seller who asked for it (readerAttempt); past the rule the reader is refused, and a
	// decline never says why.
	v := s.readerAttempt(r)
	cardOf(v, n.Fingerprint)
	if err := s.checkAttempt(ctx, v); err != nil {
		var msg *errs.Error
		errors.As(err, &msg)
		if _, ferr := fail(msg.Message); ferr != nil {
			return r, ferr
		}
		return r, err
	}
	m, err := s.gw.Vault(ctx, gateway.VaultRequest{Nonce: n.Nonce, CustomerID: r.Email, Verify: true,
		Details: gateway.MethodDetails{CardholderName: card.CardholderName, PostalCode: card.PostalCode}})
	if d, ok := gateway.AsDeclined(err); ok {
		s.declined(ctx, v, d.Fingerprint)
		s.log.InfoContext(ctx, "card declined at the reader", "reader", reader, "code", d.Code)
		return fail(MsgCardNotVerified)
	}
	s.countAttempt(attemptApproved)
	if err != nil {
		return r, s.gatewayErr(ctx, "reader vault", err)
	}
	if err := s.store.PutMethod(ctx, r.Email, m, card.PostalCode, "", s.now()); err != nil {
		return r, err
	}
	r.Status, r.Token, r.CardholderName = domain.ReaderCompleted, m.Token, m.CardholderName
	if err := s.store.FinishReaderSession(ctx, r); err != nil {
		return r, err
	}
	s.log.InfoContext(ctx, "card presented to reader", "reader", reader, "context", r.ContextID, "brand", string(m.Card.Brand), "last4", m.Card.Last4)
	return r, nil
}

// readerAttempt answers the rule of a card presented to a reader. The reader talks to the
// processor itself, so there is no client address or session: the attempt is the seller's
// who asked for the card (their own account) and the reader's. The customer's e-mail is not
// a subject: whoever types it is not its owner (velocity.go).
func (s *Service) readerAttempt(r domain.ReaderSession) *Velocity {
	rule := s.pol.Velocity
	if rule.Declines <= 0 {
		return nil
	}
	// The request passed human verification when it is on (RequestReaderVault).
	v := s.velocity(s.pol.Human != nil)
	if r.RequestedBy != "" {
		v.Add("account:" + strings.ToLower(r.RequestedBy))
	}
	v.Add("reader:" + r.Reader)
	return v
}
