package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Lookup is the search a real gateway offers over its transactions (Stripe's
// PaymentIntents search and balance transactions, Braintree's transaction search): by the
// idempotency key a request was made with, and by the time it was made. Payments uses it to
// find captures whose charge row was lost with its own transaction (payments died between
// the processor's answer and its commit) and adopt or refund them.
type Lookup interface {
	// FindByKey answers the transaction made under a caller's idempotency key, refusals
	// included; errs NotFound when the processor never recorded one.
	FindByKey(ctx context.Context, key string) (Record, error)
	// Search answers the transactions created in [from, to), oldest first, at most limit.
	Search(ctx context.Context, from, to time.Time, limit int) ([]Record, error)
}

// Record is the processor's view of one transaction.
type Record struct {
	Transaction
	Key       string
	Status    string // authorized, captured, voided or refused
	Amount    int64
	Refunded  int64
	Currency  string
	CreatedAt time.Time
	Metadata  map[string]string
}

// Kept says whether the transaction holds the customer's money (authorized, or captured and
// not wholly refunded): the ones that must end in a charge or a refund.
func (r Record) Kept() bool {
	switch r.Status {
	case "authorized":
		return true
	case "captured":
		return r.Refunded < r.Amount
	}
	return false
}

func metadataJSON(m map[string]string) ([]byte, error) {
	if m == nil {
		return []byte(`{}`), nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return b, nil
}

// FindByKey answers the sandbox's transaction of key.
func (s *Sandbox) FindByKey(ctx context.Context, key string) (Record, error) {
	r, err := s.store.RecordByKey(ctx, key)
	if errors.Is(err, ErrNoSandboxRow) {
		return r, errs.E(errs.NotFound, "no processor transaction with this key")
	}
	return r, err
}

// Search answers the sandbox's transactions created in [from, to).
func (s *Sandbox) Search(ctx context.Context, from, to time.Time, limit int) ([]Record, error) {
	return s.store.SearchRecords(ctx, from, to, limit)
}
