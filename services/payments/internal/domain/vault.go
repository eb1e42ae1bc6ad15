package domain

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// VaultStatus is the outcome of a vault request. pending exists only inside the
// transaction that asks the processor: a vault row is committed vaulted or declined.
type VaultStatus string

const (
	VaultPending  VaultStatus = "pending"
	VaultVaulted  VaultStatus = "vaulted"
	VaultDeclined VaultStatus = "declined"
)

// VaultRequest asks to store a nonce's method for a customer without charging it.
type VaultRequest struct {
	IdempotencyKey string
	CustomerID     string
	Nonce          string
	CardholderName string
	PostalCode     string
	Country        string
	MakeDefault    bool
	Reference      string
	// Token, instead of Nonce: a stored method (a zero total paid with a stored card),
	// accepted as a charge's stored method is; CustomerEmail as ChargeRequest's.
	Token         string
	CustomerEmail string
}

// Validate checks the request, answering field errors.
func (r *VaultRequest) Validate() error {
	r.Country = NormalizeCountry(r.Country)
	var fields []errs.FieldError
	add := func(f, m string) { fields = append(fields, errs.FieldError{Field: f, Message: m}) }
	if k := strings.TrimSpace(r.IdempotencyKey); k == "" || len(k) > 255 {
		add("idempotencyKey", "an idempotency key of 1 to 255 characters is required")
	}
	if strings.TrimSpace(r.CustomerID) == "" {
		add("customerId", "customer is required")
	}
	switch {
	case strings.TrimSpace(r.Nonce) == "" && strings.TrimSpace(r.Token) == "":
		add("nonce", "Credit Card cannot be blank")
	case r.Nonce != "" && r.Token != "":
		add("nonce", "exactly one of nonce or paymentMethodToken is required")
	}
	if len(fields) > 0 {
		return &errs.Error{Code: errs.Invalid, Message: fields[0].Message, Fields: fields}
	}
	return nil
}

// Hash identifies the request's content, to tell a replay from a different request
// reusing a key.
func (r VaultRequest) Hash() []byte {
	h := sha256.New()
	fmt.Fprintf(h, "vault\x00%s\x00%s\x00%s\x00%s\x00%s\x00%t\x00%s", r.CustomerID, r.Nonce, r.CardholderName, r.PostalCode,
		r.Country, r.MakeDefault, r.Reference)
	if r.Token != "" {
		// Only when set, so the keys of vaults made before the field keep their hashes.
		fmt.Fprintf(h, "\x00token\x00%s", r.Token)
	}
	return h.Sum(nil)
}

// Vault is one vault request and its outcome. It never holds card data: the method is
// its token and display summary.
type Vault struct {
	ID             string
	IdempotencyKey string
	RequestHash    []byte
	Status         VaultStatus
	CustomerID     string
	Method         MethodSummary
	FailureCode    string
	FailureMessage string
	Reference      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// NewVault starts a pending vault for r.
func NewVault(id string, r VaultRequest, now time.Time) Vault {
	return Vault{ID: id, IdempotencyKey: r.IdempotencyKey, RequestHash: r.Hash(), Status: VaultPending, CustomerID: r.CustomerID,
		Reference: r.Reference, CreatedAt: now, UpdatedAt: now}
}

// Stored records the processor's vaulted method.
func (v *Vault) Stored(m MethodSummary, now time.Time) {
	v.Status, v.Method, v.UpdatedAt = VaultVaulted, m, now
}

// Decline records the processor's refusal (of the verification or of the nonce): its code,
// and the buyer's words for it (DeclineMessage), not the processor's.
func (v *Vault) Decline(code string, now time.Time) {
	v.Status, v.FailureCode, v.FailureMessage, v.UpdatedAt = VaultDeclined, code, DeclineMessage(code), now
}
