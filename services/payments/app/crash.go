package app

import (
	"context"

	"github.com/hangar/hangar/internal/platform/fault"

	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// afterCapture, when set, runs after the processor answered a charge and before payments
// commits it: an error makes the charge fail there, as if payments died between the
// processor's capture and its own commit (crash-injection tests).
var afterCapture func(processorKey string) error

// SetAfterCaptureForTest injects f between the processor's answer and payments' commit of
// every charge built after the call (crash-injection tests). Not for production use.
func SetAfterCaptureForTest(f func(processorKey string) error) { afterCapture = f }

// crashingGateway is the processor with afterCapture run after each authorization.
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

func withCrashHook(gw gateway.Gateway) gateway.Gateway {
	hook := afterCapture
	if hook == nil {
		hook = fault.Point(fault.PaymentsAfterCapture) // the chaos run's, dev mode only
	}
	if hook == nil {
		return gw
	}
	return crashingGateway{Gateway: gw, hook: hook}
}
