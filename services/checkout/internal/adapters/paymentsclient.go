package adapters

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// PaymentsKit is the outbound chain of calls to payments. Charge, Refund and
// VaultPaymentMethod always carry
// an idempotency key (so they are retried); reads and SetBillingProfile (a put) are
// idempotent. A charge may wait on the card processor: it gets longer than the rest.
func PaymentsKit(reg prometheus.Registerer) kitclient.Config {
	return kitclient.Config{Client: "payments", Registry: reg, Timeout: 3 * time.Second,
		Timeouts:   map[string]time.Duration{"Charge": 15 * time.Second, "Refund": 15 * time.Second, "VaultPaymentMethod": 15 * time.Second},
		Idempotent: []string{"GetCharge", "GetPaymentMethod", "GetBillingProfile", "SetBillingProfile", "GetCardReference"}}
}

// PaymentsClient is the payments service as the order pipeline uses it.
type PaymentsClient struct {
	c paymentsv1.PaymentsServiceClient
}

// NewPaymentsClient uses conn (a client connection to the payments service).
func NewPaymentsClient(conn grpc.ClientConnInterface) *PaymentsClient {
	return &PaymentsClient{c: paymentsv1.NewPaymentsServiceClient(conn)}
}

// Charge charges once per key and vaults a nonce's method for the customer (renewals
// charge it). The buyer's client (auth.OutgoingClient) goes along for payments' card-testing
// rule; a renewal has none. A refused nonce (invalid, used, expired) is a decline whose message is shown.
func (p *PaymentsClient) Charge(ctx context.Context, r order.ChargeRequest) (order.Charge, error) {
	resp, err := p.c.Charge(auth.OutgoingClient(withPayer(ctx, r.Payment)), &paymentsv1.ChargeRequest{IdempotencyKey: r.Key, Amount: r.Amount, Currency: r.Currency,
		Nonce: r.Payment.Nonce, PaymentMethodToken: r.Payment.Token, CustomerId: r.CustomerID, Reference: r.Reference,
		StoreInVault: r.Payment.Nonce != "", MakeDefault: r.MakeDefault, Description: "Hangar order", CustomerEmail: r.CustomerEmail,
		Fence: r.Fence})
	if err != nil {
		return order.Charge{}, remoteErr(err, "payments")
	}
	return chargeOf(resp.GetCharge()), nil
}

// CardReference answers payments' opaque reference of the card behind the payment ("" when
// none is known): the gift caps count per card with it.
func (p *PaymentsClient) CardReference(ctx context.Context, pay order.Payment) (string, error) {
	if pay.Nonce == "" && pay.Token == "" {
		return "", nil
	}
	resp, err := p.c.GetCardReference(ctx, &paymentsv1.GetCardReferenceRequest{Nonce: pay.Nonce, PaymentMethodToken: pay.Token})
	if err != nil {
		return "", remoteErr(err, "payments")
	}
	return resp.GetCardReference(), nil
}

// withPayer sends the buyer's session along when a stored method pays: payments decides
// with it whether the method may pay (its owner, the owner of its organization, or the
// seller whose sales-mode reader vaulted it). Without a session (a renewal, a buyer not
// logged in) only the customer's own methods pay. A nonce needs no session.
func withPayer(ctx context.Context, pay order.Payment) context.Context {
	if pay.Token == "" {
		return ctx
	}
	return auth.Outgoing(ctx)
}

// Vault stores a nonce's method for the customer without a charge, once per key (the
// card verified first). A declined verification is a *order.DeclinedError.
func (p *PaymentsClient) Vault(ctx context.Context, r order.VaultRequest) (order.Charge, error) {
	resp, err := p.c.VaultPaymentMethod(auth.OutgoingClient(withPayer(ctx, r.Payment)), &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: r.Key,
		CustomerId: r.CustomerID, Nonce: r.Payment.Nonce, PaymentMethodToken: r.Payment.Token, CustomerEmail: r.CustomerEmail,
		CardholderName: r.Payment.CardholderName, MakeDefault: r.MakeDefault, Reference: r.Reference})
	if err != nil {
		return order.Charge{}, remoteErr(err, "payments")
	}
	if resp.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_VAULTED {
		return order.Charge{}, &order.DeclinedError{Code: resp.GetFailureCode(), Message: resp.GetFailureMessage()}
	}
	pm := resp.GetPaymentMethod()
	return order.Charge{CardBrand: pm.GetType(), CardLast4: pm.GetLast4(), MethodType: pm.GetType(), MethodToken: pm.GetToken(),
		CardExpires: pm.GetExpirationDate()}, nil
}

// ChargeByKey answers the charge made with key.
func (p *PaymentsClient) ChargeByKey(ctx context.Context, key string, fence int64) (order.Charge, error) {
	resp, err := p.c.GetCharge(ctx, &paymentsv1.GetChargeRequest{IdempotencyKey: key, Fence: fence})
	if err != nil {
		return order.Charge{}, remoteErr(err, "payments")
	}
	return chargeOf(resp.GetCharge()), nil
}

// Refund refunds a charge fully, once per key.
func (p *PaymentsClient) Refund(ctx context.Context, chargeID, key, reason string) error {
	_, err := p.c.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: chargeID, IdempotencyKey: key, Reason: reason})
	return remoteErr(err, "payments")
}

func chargeOf(c *paymentsv1.Charge) order.Charge {
	pm := c.GetPaymentMethod()
	return order.Charge{ID: c.GetId(), Status: strings.TrimPrefix(c.GetStatus().String(), "CHARGE_STATUS_"),
		FailureCode: c.GetFailureCode(), FailureMessage: c.GetFailureMessage(), CardBrand: pm.GetType(), CardLast4: pm.GetLast4(),
		MethodType: pm.GetType(), MethodToken: pm.GetToken(), CardExpires: pm.GetExpirationDate()}
}

// remoteErr keeps another service's classified error (its code and public message) and
// marks anything else as that service being unavailable.
func remoteErr(err error, service string) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return errs.Wrap(errs.Unavailable, err, "The "+service+" service is unavailable. Please try again.")
	}
	code := errs.FromGRPCCode(st.Code())
	if code == errs.Internal || code == errs.Unavailable {
		return errs.Wrap(code, err, "The "+service+" service is unavailable. Please try again.")
	}
	e := errs.FromStatus(st)
	e.Cause = err
	return e
}

// PaymentMethod answers an account's stored payment method (ctx carries the caller's
// session: payments checks who may see it); nil when there is none.
func (p *PaymentsClient) PaymentMethod(ctx context.Context, accountID string) (*paymentsv1.PaymentMethod, error) {
	resp, err := p.c.GetPaymentMethod(ctx, &paymentsv1.GetPaymentMethodRequest{Id: accountID})
	if err != nil {
		return nil, remoteErr(err, "payments")
	}
	return resp.GetPaymentMethod(), nil
}
