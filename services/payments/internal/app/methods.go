package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// MethodOnFile is an account's payment method as the pages show it.
type MethodOnFile struct {
	Profile   domain.BillingProfile
	Method    *domain.MethodSummary
	CanUpdate bool
	// Locked says why it cannot be updated (a quarterly check payer: contact sales).
	Locked string
}

// UpdateResult is the outcome of a payment-method update: succeeded, or failed with the
// errors the page lists.
type UpdateResult struct {
	Succeeded bool
	Errors    []string
	Method    *domain.MethodSummary
	Payment   domain.PaymentType
}

// mayManage reports whether the caller may see and change account's payment method: the
// Billing right of the platform's authorization table (the account itself, its
// organization's owner, staff); a plain member of the organization may not. payable says
// whether the answers may carry the method's token: only for the account itself or its
// organization's owner, the callers who may pay with it (staff see the card, never a
// handle they could pay with).
func mayManage(ctx context.Context, account string) (payable bool, err error) {
	c, err := auth.RequireRight(ctx, account, auth.Billing)
	return err == nil && ownsBilling(c, account), err
}

// forViewer answers m as a viewer who may (payable) or may not pay with it sees it.
func forViewer(m *domain.MethodSummary, payable bool) *domain.MethodSummary {
	if m == nil || payable {
		return m
	}
	out := *m
	out.Token = ""
	return &out
}

// Parents answers the group parent of an account, as the caller of ctx may see it ("" when
// none or hidden from the caller). Identity owns the account tree.
type Parents interface {
	ParentOf(ctx context.Context, account string) (string, error)
}

// WithParents makes the payment-method read answer a child account's group parent
// (parentReads); without it only the Billing right reads.
func (s *Service) WithParents(p Parents) *Service {
	s.parents = p
	return s
}

// parentReads reports whether the caller, refused the Billing right over account, is the
// account's group parent: the parent buys for its child (checkout's manages rule) and so
// reads the child's payment method as the child does, though without the token, which
// pays only for its owner (docs/authorization.md). Staff powers do not count.
func (s *Service) parentReads(ctx context.Context, account string) (bool, error) {
	c, ok := auth.CallerFrom(ctx)
	if !ok || c.AccountUUID == "" || s.parents == nil || account == "" || account == c.AccountUUID {
		return false, nil
	}
	parent, err := s.parents.ParentOf(ctx, account)
	return err == nil && parent != "" && parent == c.AccountUUID, err
}

// PaymentMethod answers the method on file of an account.
func (s *Service) PaymentMethod(ctx context.Context, account string) (MethodOnFile, error) {
	payable, err := mayManage(ctx, account)
	if errs.CodeOf(err) == errs.Forbidden {
		if parent, perr := s.parentReads(ctx, account); perr != nil {
			return MethodOnFile{}, perr
		} else if parent {
			payable, err = false, nil
		}
	}
	if err != nil {
		return MethodOnFile{}, err
	}
	p, err := s.store.BillingProfile(ctx, account)
	if err != nil {
		return MethodOnFile{}, err
	}
	locked := p.ChangeLocked(s.pol.SalesContact)
	out := MethodOnFile{Profile: p, CanUpdate: locked == "", Locked: locked}
	if p.Token != "" {
		m, err := s.store.Method(ctx, p.Token)
		if err != nil && errs.CodeOf(err) != errs.NotFound {
			return out, err
		}
		if err == nil {
			out.Method = forViewer(&m, payable)
		}
	}
	return out, nil
}

// UpdatePaymentMethod replaces an account's payment method: a quarterly check payer is
// told to contact sales; INVOICE switches to check billing; a card or wallet nonce is
// vaulted (a card verified first) and becomes the method on file.
func (s *Service) UpdatePaymentMethod(ctx context.Context, u domain.MethodUpdate, rawPayment string) (UpdateResult, error) {
	pay, err := domain.ParsePaymentType(rawPayment)
	if err != nil {
		return UpdateResult{Errors: []string{err.(*errs.Error).Message}}, nil
	}
	u.Payment, u.Country = pay, domain.NormalizeCountry(u.Country)
	payable, err := mayManage(ctx, u.AccountID)
	if err != nil {
		return UpdateResult{}, err
	}
	if problems := u.Problems(); len(problems) > 0 {
		return UpdateResult{Errors: problems}, nil
	}
	p, err := s.store.BillingProfile(ctx, u.AccountID)
	if err != nil {
		return UpdateResult{}, err
	}
	if msg := p.ChangeLocked(s.pol.SalesContact); msg != "" {
		return UpdateResult{Errors: []string{msg}, Payment: p.Payment}, nil
	}
	now := s.now()
	if pay == domain.PayCheck {
		p.Payment, p.Token, p.UpdatedAt = domain.PayCheck, "", now
		ev, err := methodUpdatedEvent(p, nil)
		if err != nil {
			return UpdateResult{}, err
		}
		if err := s.store.PutBillingProfile(ctx, p, ev); err != nil {
			return UpdateResult{}, err
		}
		return UpdateResult{Succeeded: true, Payment: domain.PayCheck}, nil
	}
	// A card or wallet is verified with the processor: the update asks for human
	// verification first, as card payments do (issue 41: it was a card checker for scripts).
	if msg := s.humanProblem(ctx, u.HumanValue); msg != "" {
		return UpdateResult{Errors: []string{msg}, Payment: p.Payment}, nil
	}
	// A verification is a card attempt: past the card-testing rule it is refused before the
	// processor is asked, so the answer no longer says why a card failed.
	v := s.attempt(ctx, false, s.pol.Human != nil, u.AccountID, "")
	if err := s.checkAttempt(ctx, v); err != nil {
		return UpdateResult{}, err
	}
	m, err := s.gw.Vault(ctx, gateway.VaultRequest{Nonce: u.Nonce, CustomerID: u.AccountID, Verify: true,
		Details: gateway.MethodDetails{CardholderName: u.CardholderName, PostalCode: u.Zipcode, Country: u.Country}})
	if d, ok := gateway.AsDeclined(err); ok {
		s.declined(ctx, v, d.Fingerprint)
		s.log.InfoContext(ctx, "payment method update declined", "account", u.AccountID, "code", d.Code)
		return UpdateResult{Errors: []string{MsgCardNotVerified}, Payment: p.Payment}, nil
	}
	if err != nil {
		return UpdateResult{}, s.gatewayErr(ctx, "vault", err)
	}
	s.countAttempt(attemptApproved)
	if err := s.store.PutMethod(ctx, u.AccountID, m, u.Zipcode, u.Country, now); err != nil {
		return UpdateResult{}, err
	}
	p.Payment = domain.PayCard
	if m.Kind == domain.KindWallet {
		p.Payment = domain.PayPal
	}
	p.Token, p.UpdatedAt = m.Token, now
	ev, err := methodUpdatedEvent(p, &m)
	if err != nil {
		return UpdateResult{}, err
	}
	if err := s.store.PutBillingProfile(ctx, p, ev); err != nil {
		return UpdateResult{}, err
	}
	s.log.InfoContext(ctx, "payment method updated", "account", u.AccountID, "payment", string(p.Payment))
	return UpdateResult{Succeeded: true, Method: forViewer(&m, payable), Payment: p.Payment}, nil
}

// SetBillingProfile records how an account pays (called by checkout).
func (s *Service) SetBillingProfile(ctx context.Context, account, payment, period, token string) (domain.BillingProfile, error) {
	if account == "" {
		return domain.BillingProfile{}, errs.Field("accountId", "account is required")
	}
	pay, err := domain.ParsePaymentType(payment)
	if err != nil {
		return domain.BillingProfile{}, err
	}
	per, err := domain.ParseBillingPeriod(period)
	if err != nil {
		return domain.BillingProfile{}, err
	}
	p := domain.BillingProfile{AccountID: account, Payment: pay, Period: per, Token: token, UpdatedAt: s.now()}
	return p, s.store.PutBillingProfile(ctx, p)
}

// BillingProfile answers an account's profile (the default when none is stored).
func (s *Service) BillingProfile(ctx context.Context, account string) (domain.BillingProfile, error) {
	return s.store.BillingProfile(ctx, account)
}

// methodUpdatedEvent tells checkout the account's method on file changed elsewhere than in
// checkout's order (the update page, a card reader): its renewals charge the new token, a
// renewal in its grace period is retried at once, and the card's expiry drives the
// expiring-card notice.
func methodUpdatedEvent(p domain.BillingProfile, m *domain.MethodSummary) (kafka.Event, error) {
	ev := &eventsv1.PaymentMethodUpdated{AccountId: p.AccountID, PaymentMethod: string(p.Payment), PaymentMethodToken: p.Token,
		UpdatedAt: timestamppb.New(p.UpdatedAt)}
	if m != nil {
		ev.CardType, ev.Last4, ev.ExpirationDate = string(m.Card.Brand), m.Card.Last4, m.Card.ExpirationDate()
	}
	b, err := proto.Marshal(ev)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode payment method updated: %w", err)
	}
	return kafka.Event{Topic: events.TopicPaymentMethodUpdated, Key: p.AccountID, Payload: b}, nil
}

type noClientKey struct{}

// NoClient marks ctx as work of the service itself, with no client to verify (the
// development seed's cards): it asks for no human verification.
func NoClient(ctx context.Context) context.Context {
	return context.WithValue(ctx, noClientKey{}, true)
}

// humanProblem answers why value does not pass human verification ("" when it passes or
// verification is off). The verifier's errors never carry its secret.
func (s *Service) humanProblem(ctx context.Context, value string) string {
	if s.pol.Human == nil || ctx.Value(noClientKey{}) != nil {
		return ""
	}
	ok, err := s.pol.Human.Verify(ctx, value, auth.ClientIP(ctx, s.pol.Velocity.TrustedProxies))
	if err != nil {
		s.log.WarnContext(ctx, "human verification unavailable", "err", err.Error())
		return human.MsgUnavailable
	}
	if !ok {
		return human.Refused(value)
	}
	return ""
}

// CardReference answers the opaque reference of the card behind a nonce or a vaulted
// method ("" when unknown or no card): a hash of the processor's fingerprint, so another
// service can count per card without holding anything that names the card at the
// processor. Called by checkout only (gRPC, no public route).
func (s *Service) CardReference(ctx context.Context, nonce, token string) (string, error) {
	fp, err := s.gw.CardFingerprint(ctx, nonce, token)
	if err != nil || fp == "" {
		return "", err
	}
	sum := sha256.Sum256([]byte("hangar card ref\x00" + fp))
	return hex.EncodeToString(sum[:16]), nil
}
