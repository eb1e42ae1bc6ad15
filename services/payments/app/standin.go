package app

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/standin"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// processorStandin is the sandbox processor with every call into it labelled as the
// processor stand-in (internal/standin): a real processor does that work in its own
// process, so a CPU profile of the store counts it apart. What payments does with the
// answers stays unlabelled.
type processorStandin struct{ gw gateway.Gateway }

var _ gateway.Gateway = processorStandin{}

// asProcessor runs call with the calling goroutine labelled as the processor.
func asProcessor[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	var v T
	var err error
	standin.Do(ctx, standin.Processor, func(ctx context.Context) { v, err = call(ctx) })
	return v, err
}

func (p processorStandin) ClientToken(ctx context.Context, customerID string) (string, error) {
	return asProcessor(ctx, func(ctx context.Context) (string, error) { return p.gw.ClientToken(ctx, customerID) })
}

func (p processorStandin) Tokenize(ctx context.Context, card domain.CardInput) (gateway.Nonce, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Nonce, error) { return p.gw.Tokenize(ctx, card) })
}

func (p processorStandin) TokenizeWallet(ctx context.Context, email string) (gateway.Nonce, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Nonce, error) { return p.gw.TokenizeWallet(ctx, email) })
}

func (p processorStandin) Vault(ctx context.Context, r gateway.VaultRequest) (domain.MethodSummary, error) {
	return asProcessor(ctx, func(ctx context.Context) (domain.MethodSummary, error) { return p.gw.Vault(ctx, r) })
}

func (p processorStandin) Authorize(ctx context.Context, r gateway.AuthRequest) (gateway.Transaction, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Transaction, error) { return p.gw.Authorize(ctx, r) })
}

func (p processorStandin) Charge(ctx context.Context, r gateway.AuthRequest) (gateway.Transaction, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Transaction, error) { return p.gw.Charge(ctx, r) })
}

func (p processorStandin) Capture(ctx context.Context, txID string) (gateway.Transaction, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Transaction, error) { return p.gw.Capture(ctx, txID) })
}

func (p processorStandin) Void(ctx context.Context, txID string) (gateway.Transaction, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Transaction, error) { return p.gw.Void(ctx, txID) })
}

func (p processorStandin) Refund(ctx context.Context, txID string, amount int64, key string) (string, error) {
	return asProcessor(ctx, func(ctx context.Context) (string, error) { return p.gw.Refund(ctx, txID, amount, key) })
}

func (p processorStandin) CardFingerprint(ctx context.Context, nonce, token string) (string, error) {
	return asProcessor(ctx, func(ctx context.Context) (string, error) { return p.gw.CardFingerprint(ctx, nonce, token) })
}

func (p processorStandin) GetPaymentMethod(ctx context.Context, token string) (domain.MethodSummary, error) {
	return asProcessor(ctx, func(ctx context.Context) (domain.MethodSummary, error) { return p.gw.GetPaymentMethod(ctx, token) })
}

func (p processorStandin) UpdatePaymentMethod(ctx context.Context, token string, u gateway.MethodDetails) (domain.MethodSummary, error) {
	return asProcessor(ctx, func(ctx context.Context) (domain.MethodSummary, error) {
		return p.gw.UpdatePaymentMethod(ctx, token, u)
	})
}

func (p processorStandin) FindByKey(ctx context.Context, key string) (gateway.Record, error) {
	return asProcessor(ctx, func(ctx context.Context) (gateway.Record, error) { return p.gw.FindByKey(ctx, key) })
}

func (p processorStandin) Search(ctx context.Context, from, to time.Time, limit int) ([]gateway.Record, error) {
	return asProcessor(ctx, func(ctx context.Context) ([]gateway.Record, error) { return p.gw.Search(ctx, from, to, limit) })
}
