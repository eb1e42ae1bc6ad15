// Package app holds the payments use cases: tokenising card fields, idempotent charges
// and their captures, voids and refunds, payment-method updates under the billing-profile
// rules, and the card-reader vault flow of sales mode.
package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// Policies are the service's settings.
type Policies struct {
	SalesContact  string
	Readers       []string
	ReaderTimeout time.Duration
	// Velocity is the card-testing rule (velocity.go); Attempts counts card attempts by
	// outcome (nil: not counted).
	Velocity VelocityRule
	Attempts *prometheus.CounterVec
	// Human verifies the human-verification value of the payment-method update and the
	// card-reader vault (nil: human verification is off).
	Human human.Verifier
	// SweepLease is the processor sweep's lease (default DefaultSweepLease), renewed every
	// third of it while a sweep runs: a sweeper that dies or stops is taken over a lease
	// after its last renewal.
	SweepLease time.Duration
}

// Service is the payments use cases.
type Service struct {
	store Store
	gw    gateway.Gateway
	pol   Policies
	now   func() time.Time
	log   *slog.Logger
	// limits caches the card-testing refusals this replica learnt (velocity.go).
	limits *limitCache
	// parents answers a child account's group parent (WithParents; nil: none known).
	parents Parents
}

// New builds the service.
func New(store Store, gw gateway.Gateway, pol Policies, now func() time.Time, log *slog.Logger) *Service {
	return &Service{store: store, gw: gw, pol: pol, now: now, log: log, limits: newLimitCache(100_000)}
}

// NewID answers a random UUID (v4).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// ProcessorKey is the card processor's idempotency key of a charge's idempotency key:
// fixed length, and the same for every attempt at the charge.
func ProcessorKey(chargeKey string) string {
	sum := sha256.Sum256([]byte("hangar payments charge\x00" + chargeKey))
	return "chg_" + hex.EncodeToString(sum[:16])
}

// ClientToken answers the hosted fields' client authorization.
func (s *Service) ClientToken(ctx context.Context) (string, error) {
	c, _ := auth.CallerFrom(ctx)
	return s.gw.ClientToken(ctx, c.AccountUUID)
}

// Tokenize turns card fields into a nonce. Only the summary is logged.
func (s *Service) Tokenize(ctx context.Context, in domain.CardInput) (gateway.Nonce, error) {
	n, err := s.gw.Tokenize(ctx, in)
	if err != nil {
		return n, s.gatewayErr(ctx, "tokenize card", err)
	}
	// Card testing: the client (or the card) past its declines gets no nonce.
	// It asks this replica's cache of refusals, not the database: a tokenisation costs no
	// statement of its own; the charge that follows checks the shared counts.
	v := s.attempt(ctx, false, false, "", "")
	cardOf(v, n.Fingerprint)
	if err := s.cachedAttempt(ctx, v); err != nil {
		return gateway.Nonce{}, err
	}
	s.log.DebugContext(ctx, "card tokenized", "brand", string(n.Card.Brand), "last4", n.Card.Last4)
	return n, nil
}

// TokenizeWallet runs the wallet 'vault' flow.
func (s *Service) TokenizeWallet(ctx context.Context, email string) (gateway.Nonce, error) {
	n, err := s.gw.TokenizeWallet(ctx, email)
	if err != nil {
		return n, s.gatewayErr(ctx, "tokenize wallet", err)
	}
	return n, nil
}

// gatewayErr classifies a processor error that is not a refusal: field errors pass on,
// outages are Unavailable (detail logged only).
func (s *Service) gatewayErr(ctx context.Context, what string, err error) error {
	if d, ok := gateway.AsDeclined(err); ok {
		return errs.E(errs.Invalid, "%s", d.Message)
	}
	switch errs.CodeOf(err) {
	case errs.Invalid, errs.NotFound, errs.Precondition:
		return err
	}
	return errs.Wrap(errs.Unavailable, fmt.Errorf("%s: %w", what, err), "The payment processor is unavailable. Please try again.")
}

// Charge charges once per idempotency key (see Charges.Charge). The card that paid,
// vaulted, becomes the customer's method on file when none is (a new buyer) or when asked:
// /account and the renewals then use the card just used. It is written with the charge, so
// a charge is never recorded without it (a retry of the key after a failed write finds the
// processor's transaction and the vaulted method again).
func (s *Service) Charge(ctx context.Context, r domain.ChargeRequest) (domain.Charge, bool, error) {
	if err := r.Validate(); err != nil {
		return domain.Charge{}, false, err
	}
	// A stored method pays only for its owner: the charge's row is claimed only when the
	// payer may pay with it (in the claim's own statement), before the processor is asked.
	var payer *Payer
	if r.Token != "" {
		p := s.payer(ctx, r.Token, r.CustomerID, r.CustomerEmail)
		payer = &p
	}
	// Card testing: the rule rides in the charge's own statements.
	v := s.attempt(ctx, true, false, r.CustomerID, r.CustomerEmail)
	c, replayed, err := s.store.Charge(ctx, domain.NewCharge(NewID(), r, s.now()), payer, v, func(ctx context.Context, c *domain.Charge) ([]kafka.Event, *Adoption, error) {
		var reader *StoredMethod
		if payer != nil {
			var err error
			if reader, err = s.readerCard(ctx, *payer); err != nil {
				return nil, nil, err
			}
		}
		// The processor's idempotency key comes from the charge's key, not its row id: the row
		// is written in the same transaction as the processor's answer, so when payments dies
		// (or loses the connection) after the processor captured, the row is gone and a retry
		// of the key makes a new one. With the row id the processor saw a new request and
		// captured again (or refused the spent nonce while keeping the first capture).
		tx, err := s.gw.Authorize(ctx, gateway.AuthRequest{IdempotencyKey: ProcessorKey(c.IdempotencyKey), Amount: c.Amount, Currency: c.Currency,
			Nonce: r.Nonce, Token: r.Token, CustomerID: r.CustomerID, Capture: !r.AuthorizeOnly, StoreInVault: r.StoreInVault,
			Metadata: chargeMetadata(*c, r)})
		now := s.now()
		if d, ok := gateway.AsDeclined(err); ok {
			cardOf(v, d.Fingerprint)
			// The processor's wording stays with support (the buyer reads DeclineMessage).
			s.log.InfoContext(ctx, "processor declined the charge", "charge", c.ID, "code", d.Code, "reason", d.Message)
			return nil, nil, c.Fail(d.Code, now)
		}
		if err == gateway.ErrTimeout {
			s.log.WarnContext(ctx, "processor timed out; charge left pending", "charge", c.ID)
			return nil, nil, c.Unknown(now)
		}
		if err != nil {
			return nil, nil, s.gatewayErr(ctx, "authorize", err)
		}
		var adopt *Adoption
		if r.StoreInVault && tx.Method.Token != "" {
			// The card of checkout's order: the order writes it on its subscription, so it is
			// not announced (payment-method-updated is for methods changed elsewhere).
			adopt = &Adoption{Customer: r.CustomerID, Method: tx.Method, MakeDefault: r.MakeDefault, Now: now}
		}
		if reader != nil {
			// The reader's card, vaulted for the customer's e-mail, becomes the account's: its
			// renewals charge it as the account's own.
			adopt = &Adoption{Customer: r.CustomerID, Method: reader.Method, Postal: reader.Postal, Country: reader.Country,
				MakeDefault: r.MakeDefault, Now: now, Event: methodUpdatedEvent}
		}
		if !tx.Captured {
			return nil, adopt, c.Authorized(tx.ID, tx.Method, now)
		}
		if err := c.MarkCaptured(tx.ID, tx.Method, now); err != nil {
			return nil, nil, err
		}
		events, err := capturedEvent(*c, now)
		return events, adopt, err
	})
	if errors.Is(err, ErrRefused) {
		return c, false, s.refused(ctx, *payer, r.CustomerID, r.Reference)
	}
	if err != nil {
		return c, false, s.limitedErr(ctx, err)
	}
	if v != nil {
		s.limits.learn(v.Reached) // what the decline, recorded with the charge, brought to the limit
	}
	if !replayed {
		s.countAttempt(chargeOutcome(c))
		s.log.InfoContext(ctx, "charge", "charge", c.ID, "status", string(c.Status), "amount", c.Amount, "currency", c.Currency,
			"failure", c.FailureCode)
	}
	return c, replayed, nil
}

// Capture captures an authorized charge.
func (s *Service) Capture(ctx context.Context, id string) (domain.Charge, error) {
	return s.store.UpdateCharge(ctx, id, func(ctx context.Context, c *domain.Charge) ([]kafka.Event, error) {
		if c.Status == domain.Captured {
			return nil, nil // capturing twice answers the capture
		}
		if err := c.CanCapture(); err != nil {
			return nil, err
		}
		tx, err := s.gw.Capture(ctx, c.ProcessorTxID)
		if err != nil {
			return nil, s.gatewayErr(ctx, "capture", err)
		}
		now := s.now()
		if err := c.MarkCaptured(tx.ID, c.Method, now); err != nil {
			return nil, err
		}
		return capturedEvent(*c, now)
	})
}

// Void cancels an authorized charge.
func (s *Service) Void(ctx context.Context, id string) (domain.Charge, error) {
	return s.store.UpdateCharge(ctx, id, func(ctx context.Context, c *domain.Charge) ([]kafka.Event, error) {
		if c.Status == domain.Voided {
			return nil, nil
		}
		if err := c.Void(s.now()); err != nil {
			return nil, err
		}
		if _, err := s.gw.Void(ctx, c.ProcessorTxID); err != nil {
			return nil, s.gatewayErr(ctx, "void", err)
		}
		return nil, nil
	})
}

// Refund refunds amount (0: all that is left) of a captured charge, once per key.
func (s *Service) Refund(ctx context.Context, chargeID string, amount int64, key, reason string) (domain.Refund, domain.Charge, bool, error) {
	if strings.TrimSpace(key) == "" {
		return domain.Refund{}, domain.Charge{}, false, errs.Field("idempotencyKey", "an idempotency key is required")
	}
	return s.store.Refund(ctx, chargeID, key, func(ctx context.Context, c *domain.Charge) (domain.Refund, []kafka.Event, error) {
		amt, err := c.RefundAmount(amount)
		if err != nil {
			return domain.Refund{}, nil, err
		}
		pid, err := s.gw.Refund(ctx, c.ProcessorTxID, amt, key)
		if err != nil {
			return domain.Refund{}, nil, s.gatewayErr(ctx, "refund", err)
		}
		now := s.now()
		if err := c.Refund(amt, now); err != nil {
			return domain.Refund{}, nil, err
		}
		r := domain.Refund{ID: NewID(), ChargeID: c.ID, IdempotencyKey: key, Amount: amt, Reason: reason, ProcessorID: pid, CreatedAt: now}
		b, err := proto.Marshal(&eventsv1.PaymentRefunded{ChargeId: c.ID, RefundId: r.ID, CustomerId: c.CustomerID, Amount: amt,
			RefundedTotal: c.Refunded, Currency: c.Currency, Status: strings.ToUpper(string(c.Status)), Reference: c.Reference,
			RefundedAt: timestamppb.New(now)})
		if err != nil {
			return r, nil, fmt.Errorf("encode refund event: %w", err)
		}
		return r, []kafka.Event{{Topic: events.TopicPaymentRefunded, Key: c.ID, Payload: b}}, nil
	})
}

// GetCharge answers a charge.
func (s *Service) GetCharge(ctx context.Context, id string) (domain.Charge, error) {
	return s.store.GetCharge(ctx, id)
}

func capturedEvent(c domain.Charge, now time.Time) ([]kafka.Event, error) {
	b, err := proto.Marshal(&eventsv1.PaymentCaptured{ChargeId: c.ID, CustomerId: c.CustomerID, Amount: c.Captured,
		Currency: c.Currency, PaymentMethodType: string(c.Method.Kind), CardType: string(c.Method.Card.Brand),
		Last4: c.Method.Card.Last4, Reference: c.Reference, CapturedAt: timestamppb.New(now)})
	if err != nil {
		return nil, fmt.Errorf("encode capture event: %w", err)
	}
	return []kafka.Event{{Topic: events.TopicPaymentCaptured, Key: c.ID, Payload: b}}, nil
}

// StatusProto maps a status to the contract's enum.
func StatusProto(s domain.Status) paymentsv1.ChargeStatus {
	switch s {
	case domain.Pending:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_PENDING
	case domain.Authorized:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_AUTHORIZED
	case domain.Captured:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED
	case domain.Failed:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED
	case domain.Voided:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_VOIDED
	case domain.Refunded:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_REFUNDED
	case domain.PartiallyRefunded:
		return paymentsv1.ChargeStatus_CHARGE_STATUS_PARTIALLY_REFUNDED
	}
	return paymentsv1.ChargeStatus_CHARGE_STATUS_UNSPECIFIED
}
