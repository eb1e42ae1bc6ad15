package app

import (
	"context"

	"github.com/hangar/hangar/internal/platform/fault"

	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// crashingGateway is the processor with a crash hook run after each authorization.
type crashingGateway struct {
	gateway.Gateway
	hook func(string) error
}

func (g crashingGateway) Authorize(ctx context.Context, r gateway.AuthRequest) (gateway.Transaction, error) {
	t, err := g.Gateway.Authorize(ctx, r)
	if err == nil {
		if herr := g.hook(r.IdempotencyKey); herr != nil {
			return gateway.Transaction{}, herr
		}
	}
	return t, err
}

// withCrashHook wraps gw with hook (WithAfterCapture), else with the chaos run's.
func withCrashHook(hook func(string) error, gw gateway.Gateway) gateway.Gateway {
	if hook == nil {
		hook = fault.Point(fault.PaymentsAfterCapture) // the chaos run's, dev mode only
	}
	if hook == nil {
		return gw
	}
	return crashingGateway{Gateway: gw, hook: hook}
}
