package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// ProcessorVaultKey is the card processor's idempotency key of a vault's idempotency key
// (see ProcessorKey): a vault retried after payments lost the processor's answer reaches
// the same processor request instead of spending the nonce twice.
func ProcessorVaultKey(vaultKey string) string {
	sum := sha256.Sum256([]byte("hangar payments vault\x00" + vaultKey))
	return "vlt_" + hex.EncodeToString(sum[:16])
}

// VaultPaymentMethod stores a nonce's method for a customer without charging it, once per
// idempotency key: a card is verified first (a declined verification is a declined vault,
// replayed as such); the vaulted method becomes the customer's method on file when none
// is, or when asked (Adoption). It answers the vault and whether it is a replay.
func (s *Service) VaultPaymentMethod(ctx context.Context, r domain.VaultRequest) (domain.Vault, bool, error) {
	if err := r.Validate(); err != nil {
		return domain.Vault{}, false, err
	}
	if r.Token != "" {
		return s.vaultStored(ctx, r)
	}
	// A verification is a card attempt (velocity.go).
	rule := s.attempt(ctx, true, false, r.CustomerID, r.CustomerEmail)
	if err := s.checkAttempt(ctx, rule); err != nil {
		return domain.Vault{}, false, err
	}
	var declinedCard string
	v, replayed, err := s.store.Vault(ctx, domain.NewVault(NewID(), r, s.now()), func(ctx context.Context, v *domain.Vault) (*Adoption, error) {
		m, err := s.gw.Vault(ctx, gateway.VaultRequest{IdempotencyKey: ProcessorVaultKey(v.IdempotencyKey), Nonce: r.Nonce,
			CustomerID: r.CustomerID, Verify: true,
			Details: gateway.MethodDetails{CardholderName: r.CardholderName, PostalCode: r.PostalCode, Country: r.Country}})
		now := s.now()
		if d, ok := gateway.AsDeclined(err); ok {
			// The processor's wording stays with support (the buyer reads DeclineMessage).
			s.log.InfoContext(ctx, "processor declined the verification", "vault", v.ID, "code", d.Code, "reason", d.Message)
			v.Decline(d.Code, now)
			declinedCard = d.Fingerprint
			return nil, nil
		}
		if err != nil {
			return nil, s.gatewayErr(ctx, "vault", err)
		}
		v.Stored(m, now)
		// A vault is checkout's zero-total order's: the order writes the card on its
		// subscription, so it is not announced (as Charge's card).
		return &Adoption{Customer: r.CustomerID, Method: m, Postal: r.PostalCode, Country: r.Country,
			MakeDefault: r.MakeDefault, Now: now}, nil
	})
	if err != nil {
		return v, false, err
	}
	if !replayed {
		if v.FailureCode != "" {
			s.declined(ctx, rule, declinedCard)
		} else {
			s.countAttempt(attemptApproved)
		}
		s.log.InfoContext(ctx, "vault", "vault", v.ID, "status", string(v.Status), "failure", v.FailureCode)
	}
	return v, replayed, nil
}

// vaultStored answers a vault of a stored method (a zero total paid with a stored card):
// the method, under the stored-method rule of a charge (methodFor), adopted by the
// customer as a vaulted one is. The processor is not asked; the key's row makes a retry
// a replay like any vault's.
func (s *Service) vaultStored(ctx context.Context, r domain.VaultRequest) (domain.Vault, bool, error) {
	p := s.payer(ctx, r.Token, r.CustomerID, r.CustomerEmail)
	ok, err := s.store.MayPay(ctx, p)
	if err != nil {
		return domain.Vault{}, false, err
	}
	if !ok {
		return domain.Vault{}, false, s.refused(ctx, p, r.CustomerID, r.Reference)
	}
	sm, err := s.store.StoredMethod(ctx, r.Token)
	if err != nil {
		return domain.Vault{}, false, err
	}
	return s.store.Vault(ctx, domain.NewVault(NewID(), r, s.now()), func(_ context.Context, v *domain.Vault) (*Adoption, error) {
		now := s.now()
		v.Stored(sm.Method, now)
		return &Adoption{Customer: r.CustomerID, Method: sm.Method, Postal: sm.Postal, Country: sm.Country,
			MakeDefault: r.MakeDefault, Now: now}, nil
	})
}
