package app

import (
	"context"
	"reflect"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/standin"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// Every call into the sandbox processor runs labelled as the processor stand-in (its CPU
// is a real processor's, in another process), and the caller's context stays the store's.
func TestEveryProcessorCallRunsLabelledAsTheStandin(t *testing.T) {
	t.Parallel()
	iface := reflect.TypeFor[gateway.Gateway]()
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			var got string
			var labelled bool
			spy := spy{seen: func(ctx context.Context) { got, labelled = pprof.Label(ctx, standin.Key) }}
			ctx := context.Background()
			args := []reflect.Value{reflect.ValueOf(ctx)}
			for j := 1; j < m.Type.NumIn(); j++ {
				args = append(args, reflect.Zero(m.Type.In(j)))
			}
			reflect.ValueOf(processorStandin{spy}).MethodByName(m.Name).Call(args)
			if !labelled || got != standin.Processor {
				t.Errorf("%s ran with label %q (set %v), want %q", m.Name, got, labelled, standin.Processor)
			}
			if _, ok := pprof.Label(ctx, standin.Key); ok {
				t.Errorf("the caller's context is labelled after %s", m.Name)
			}
		})
	}
}

// spy is a processor each of whose methods calls seen with its context and answers zero
// values.
type spy struct{ seen func(context.Context) }

func (s spy) ClientToken(ctx context.Context, _ string) (string, error) { s.seen(ctx); return "", nil }
func (s spy) Tokenize(ctx context.Context, _ domain.CardInput) (gateway.Nonce, error) {
	s.seen(ctx)
	return gateway.Nonce{}, nil
}
func (s spy) TokenizeWallet(ctx context.Context, _ string) (gateway.Nonce, error) {
	s.seen(ctx)
	return gateway.Nonce{}, nil
}
func (s spy) Vault(ctx context.Context, _ gateway.VaultRequest) (domain.MethodSummary, error) {
	s.seen(ctx)
	return domain.MethodSummary{}, nil
}
func (s spy) Authorize(ctx context.Context, _ gateway.AuthRequest) (gateway.Transaction, error) {
	s.seen(ctx)
	return gateway.Transaction{}, nil
}
func (s spy) Charge(ctx context.Context, _ gateway.AuthRequest) (gateway.Transaction, error) {
	s.seen(ctx)
	return gateway.Transaction{}, nil
}
func (s spy) Capture(ctx context.Context, _ string) (gateway.Transaction, error) {
	s.seen(ctx)
	return gateway.Transaction{}, nil
}
func (s spy) Void(ctx context.Context, _ string) (gateway.Transaction, error) {
	s.seen(ctx)
	return gateway.Transaction{}, nil
}
func (s spy) Refund(ctx context.Context, _ string, _ int64, _ string) (string, error) {
	s.seen(ctx)
	return "", nil
}
func (s spy) CardFingerprint(ctx context.Context, _, _ string) (string, error) {
	s.seen(ctx)
	return "", nil
}
func (s spy) GetPaymentMethod(ctx context.Context, _ string) (domain.MethodSummary, error) {
	s.seen(ctx)
	return domain.MethodSummary{}, nil
}
func (s spy) UpdatePaymentMethod(ctx context.Context, _ string, _ gateway.MethodDetails) (domain.MethodSummary, error) {
	s.seen(ctx)
	return domain.MethodSummary{}, nil
}
func (s spy) FindByKey(ctx context.Context, _ string) (gateway.Record, error) {
	s.seen(ctx)
	return gateway.Record{}, nil
}
func (s spy) Search(ctx context.Context, _, _ time.Time, _ int) ([]gateway.Record, error) {
	s.seen(ctx)
	return nil, nil
}
