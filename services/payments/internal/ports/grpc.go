// Package ports serves payments over gRPC and, through grpc-gateway, REST; and directly
// over HTTP the fields origin (the hosted card fields and tokenisation), the card images
// and the dev card-reader simulator (http.go). A port only converts, calls the use cases
// and lets errors map through the one table.
package ports

import (
	"context"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// FullAnswers are the answers the gateway writes with every field (server.EmitDefaults):
// the card-reader list answers serialNumbers even when there are none (spec 001 §7).
func FullAnswers() []proto.Message { return []proto.Message{&paymentsv1.ListCardReadersResponse{}} }

// GRPC implements paymentsv1.PaymentsServiceServer.
type GRPC struct {
	paymentsv1.UnimplementedPaymentsServiceServer
	svc *iapp.Service
	// FieldsURL is the hosted card fields' page on the fields origin
	// (PAYMENTS_FIELDS_ORIGIN + "/"), which the client token names so the store's pages
	// know what to frame.
	FieldsURL string
}

// NewGRPC serves svc.
func NewGRPC(svc *iapp.Service) *GRPC { return &GRPC{svc: svc} }

func (g *GRPC) GetClientToken(ctx context.Context, _ *paymentsv1.GetClientTokenRequest) (*paymentsv1.GetClientTokenResponse, error) {
	t, err := g.svc.ClientToken(ctx)
	if err != nil {
		return nil, err
	}
	return &paymentsv1.GetClientTokenResponse{ClientToken: t, HostedFieldsUrl: g.FieldsURL, Environment: "sandbox"}, nil
}

func (g *GRPC) Tokenize(ctx context.Context, r *paymentsv1.TokenizeRequest) (*paymentsv1.TokenizeResponse, error) {
	if r.GetFlow() == "vault" {
		n, err := g.svc.TokenizeWallet(ctx, r.GetWalletEmail())
		if err != nil {
			return nil, err
		}
		return nonceProto(n.Nonce, n.Kind, n.Card, n.BIN, n.Email, n.ExpiresAt.Unix()), nil
	}
	n, err := g.svc.Tokenize(ctx, domain.CardInput{Number: r.GetNumber(), CVV: r.GetCvv(), ExpirationDate: r.GetExpirationDate(),
		CardholderName: r.GetCardholderName(), PostalCode: r.GetPostalCode()})
	if err != nil {
		return nil, err
	}
	return nonceProto(n.Nonce, n.Kind, n.Card, n.BIN, n.Email, n.ExpiresAt.Unix()), nil
}

func nonceProto(nonce string, kind domain.MethodKind, c domain.Summary, bin, email string, exp int64) *paymentsv1.TokenizeResponse {
	out := &paymentsv1.TokenizeResponse{Nonce: nonce, Type: string(kind), ExpiresAt: &timestamppb.Timestamp{Seconds: exp}}
	if kind == domain.KindWallet {
		out.Details = &paymentsv1.NonceDetails{Email: email}
		out.Description = email
		return out
	}
	out.Details = &paymentsv1.NonceDetails{CardType: string(c.Brand), LastFour: c.Last4, LastTwo: c.Last4[2:],
		ExpirationMonth: twoDigits(c.ExpMonth), ExpirationYear: itoa(c.ExpYear), Bin: bin}
	out.Description = "ending in " + c.Last4[2:]
	return out
}

func (g *GRPC) Charge(ctx context.Context, r *paymentsv1.ChargeRequest) (*paymentsv1.ChargeResponse, error) {
	c, replayed, err := g.svc.Charge(ctx, domain.ChargeRequest{IdempotencyKey: r.GetIdempotencyKey(), Amount: r.GetAmount(),
		Currency: r.GetCurrency(), Nonce: r.GetNonce(), Token: r.GetPaymentMethodToken(), CustomerID: r.GetCustomerId(),
		Description: r.GetDescription(), Reference: r.GetReference(), AuthorizeOnly: r.GetAuthorizeOnly(), StoreInVault: r.GetStoreInVault(),
		MakeDefault: r.GetMakeDefault(), CustomerEmail: r.GetCustomerEmail(), Fence: r.GetFence()})
	if err != nil {
		return nil, err
	}
	return &paymentsv1.ChargeResponse{Charge: chargeProto(c), Replayed: replayed}, nil
}

func (g *GRPC) VaultPaymentMethod(ctx context.Context, r *paymentsv1.VaultPaymentMethodRequest) (*paymentsv1.VaultPaymentMethodResponse, error) {
	v, replayed, err := g.svc.VaultPaymentMethod(ctx, domain.VaultRequest{IdempotencyKey: r.GetIdempotencyKey(),
		CustomerID: r.GetCustomerId(), Nonce: r.GetNonce(), CardholderName: r.GetCardholderName(), PostalCode: r.GetPostalCode(),
		Country: r.GetCountry(), MakeDefault: r.GetMakeDefault(), Reference: r.GetReference(), Token: r.GetPaymentMethodToken(),
		CustomerEmail: r.GetCustomerEmail()})
	if err != nil {
		return nil, err
	}
	out := &paymentsv1.VaultPaymentMethodResponse{Status: paymentsv1.VaultStatus_VAULT_STATUS_DECLINED, FailureCode: v.FailureCode,
		FailureMessage: v.FailureMessage, Replayed: replayed}
	if v.Status == domain.VaultVaulted {
		m := v.Method
		out.Status, out.PaymentMethod = paymentsv1.VaultStatus_VAULT_STATUS_VAULTED, methodProto(&m)
	}
	return out, nil
}

func (g *GRPC) Capture(ctx context.Context, r *paymentsv1.CaptureRequest) (*paymentsv1.CaptureResponse, error) {
	c, err := g.svc.Capture(ctx, r.GetChargeId())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.CaptureResponse{Charge: chargeProto(c)}, nil
}

func (g *GRPC) Void(ctx context.Context, r *paymentsv1.VoidRequest) (*paymentsv1.VoidResponse, error) {
	c, err := g.svc.Void(ctx, r.GetChargeId())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.VoidResponse{Charge: chargeProto(c)}, nil
}

func (g *GRPC) Refund(ctx context.Context, r *paymentsv1.RefundRequest) (*paymentsv1.RefundResponse, error) {
	rf, c, replayed, err := g.svc.Refund(ctx, r.GetChargeId(), r.GetAmount(), r.GetIdempotencyKey(), r.GetReason())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.RefundResponse{RefundId: rf.ID, Amount: rf.Amount, Charge: chargeProto(c), Replayed: replayed}, nil
}

func (g *GRPC) GetCharge(ctx context.Context, r *paymentsv1.GetChargeRequest) (*paymentsv1.GetChargeResponse, error) {
	var c domain.Charge
	var err error
	if k := r.GetIdempotencyKey(); k != "" && r.GetChargeId() == "" {
		c, err = g.svc.GetChargeByKey(ctx, k, r.GetFence())
	} else {
		c, err = g.svc.GetCharge(ctx, r.GetChargeId())
	}
	if err != nil {
		return nil, err
	}
	return &paymentsv1.GetChargeResponse{Charge: chargeProto(c)}, nil
}

func (g *GRPC) GetPaymentMethod(ctx context.Context, r *paymentsv1.GetPaymentMethodRequest) (*paymentsv1.GetPaymentMethodResponse, error) {
	m, err := g.svc.PaymentMethod(ctx, r.GetId())
	if err != nil {
		return nil, err
	}
	can := m.CanUpdate
	out := &paymentsv1.GetPaymentMethodResponse{Status: "ok", PaymentMethod: methodProto(m.Method),
		PaymentMethodType: string(m.Profile.Payment), BillingPeriod: string(m.Profile.Period), CanUpdate: &can}
	if m.Locked != "" {
		// The account page shows why before anyone types a card (contact sales).
		out.Errors = []string{m.Locked}
	}
	return out, nil
}

func (g *GRPC) UpdatePaymentMethod(ctx context.Context, r *paymentsv1.UpdatePaymentMethodRequest) (*paymentsv1.UpdatePaymentMethodResponse, error) {
	res, err := g.svc.UpdatePaymentMethod(ctx, domain.MethodUpdate{AccountID: r.GetAccountId(), Nonce: r.GetNonce(),
		Zipcode: r.GetZipcode(), CardholderName: r.GetCardholderName(), Country: r.GetCountry(), HumanValue: r.GetRecaptchaValue()}, r.GetPaymentMethod())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.UpdatePaymentMethodResponse{Status: outcome(res), Errors: res.Errors, PaymentMethod: methodProto(res.Method),
		PaymentMethodType: string(res.Payment)}, nil
}

func (g *GRPC) UpdateAccountPaymentMethod(ctx context.Context, r *paymentsv1.UpdateAccountPaymentMethodRequest) (*paymentsv1.UpdateAccountPaymentMethodResponse, error) {
	res, err := g.svc.UpdatePaymentMethod(ctx, domain.MethodUpdate{AccountID: r.GetAccountId(), Nonce: r.GetNonce(),
		Zipcode: r.GetZipcode(), CardholderName: r.GetCardholderName(), Country: r.GetCountry(), HumanValue: r.GetRecaptchaValue()}, r.GetPaymentMethod())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.UpdateAccountPaymentMethodResponse{Status: outcome(res), Errors: res.Errors, PaymentMethod: methodProto(res.Method),
		PaymentMethodType: string(res.Payment)}, nil
}

func outcome(r iapp.UpdateResult) string {
	if r.Succeeded {
		return "succeeded"
	}
	return "failed"
}

func (g *GRPC) SetBillingProfile(ctx context.Context, r *paymentsv1.SetBillingProfileRequest) (*paymentsv1.SetBillingProfileResponse, error) {
	p, err := g.svc.SetBillingProfile(ctx, r.GetAccountId(), r.GetPaymentMethod(), r.GetBillingPeriod(), r.GetPaymentMethodToken())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.SetBillingProfileResponse{Profile: profileProto(p)}, nil
}

func (g *GRPC) GetCardReference(ctx context.Context, r *paymentsv1.GetCardReferenceRequest) (*paymentsv1.GetCardReferenceResponse, error) {
	ref, err := g.svc.CardReference(ctx, r.GetNonce(), r.GetPaymentMethodToken())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.GetCardReferenceResponse{CardReference: ref}, nil
}

func (g *GRPC) GetBillingProfile(ctx context.Context, r *paymentsv1.GetBillingProfileRequest) (*paymentsv1.GetBillingProfileResponse, error) {
	p, err := g.svc.BillingProfile(ctx, r.GetAccountId())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.GetBillingProfileResponse{Profile: profileProto(p)}, nil
}

func (g *GRPC) ListCardReaders(ctx context.Context, _ *paymentsv1.ListCardReadersRequest) (*paymentsv1.ListCardReadersResponse, error) {
	readers, err := g.svc.Readers(ctx)
	if err != nil {
		return nil, err
	}
	return &paymentsv1.ListCardReadersResponse{SerialNumbers: readers}, nil
}

func (g *GRPC) RequestReaderVault(ctx context.Context, r *paymentsv1.RequestReaderVaultRequest) (*paymentsv1.RequestReaderVaultResponse, error) {
	id, err := g.svc.RequestReaderVault(ctx, r.GetEmail(), r.GetReaderSerialNumber(), r.GetRecaptchaValue())
	if err != nil {
		return nil, err
	}
	return &paymentsv1.RequestReaderVaultResponse{ContextId: id}, nil
}

func (g *GRPC) GetReaderVaultResult(ctx context.Context, r *paymentsv1.GetReaderVaultResultRequest) (*paymentsv1.GetReaderVaultResultResponse, error) {
	m, s, err := g.svc.ReaderResult(ctx, r.GetContextId())
	if err != nil {
		return nil, err
	}
	if m == nil {
		return &paymentsv1.GetReaderVaultResultResponse{Status: "waiting"}, nil
	}
	return &paymentsv1.GetReaderVaultResultResponse{Status: "completed", PaymentMethod: methodProto(m), CardholderName: s.CardholderName}, nil
}

func chargeProto(c domain.Charge) *paymentsv1.Charge {
	out := &paymentsv1.Charge{Id: c.ID, Status: iapp.StatusProto(c.Status), Amount: c.Amount, Currency: c.Currency,
		CapturedAmount: c.Captured, RefundedAmount: c.Refunded, CustomerId: c.CustomerID, FailureCode: c.FailureCode,
		FailureMessage: c.FailureMessage, ProcessorTransactionId: c.ProcessorTxID, Reference: c.Reference,
		CreatedAt: timestamppb.New(c.CreatedAt), UpdatedAt: timestamppb.New(c.UpdatedAt)}
	if c.Method.Kind != "" {
		m := c.Method
		out.PaymentMethod = methodProto(&m)
	}
	return out
}

func methodProto(m *domain.MethodSummary) *paymentsv1.PaymentMethod {
	if m == nil {
		return nil
	}
	isCard := m.Kind == domain.KindCard
	out := &paymentsv1.PaymentMethod{Token: m.Token, IsCreditCard: &isCard, CardholderName: m.CardholderName}
	if isCard {
		out.Last4, out.ExpirationDate, out.Type = m.Card.Last4, m.Card.ExpirationDate(), string(m.Card.Brand)
		out.ImageUrl = CardImagePath + m.Card.Brand.Slug() + ".svg"
	} else {
		out.Type, out.BraintreeEmail, out.ImageUrl = "PayPal", m.Email, CardImagePath+"paypal.svg"
	}
	return out
}

func profileProto(p domain.BillingProfile) *paymentsv1.BillingProfile {
	out := &paymentsv1.BillingProfile{AccountId: p.AccountID, PaymentMethod: string(p.Payment), BillingPeriod: string(p.Period),
		PaymentMethodToken: p.Token}
	if !p.UpdatedAt.IsZero() {
		out.UpdatedAt = timestamppb.New(p.UpdatedAt)
	}
	return out
}

func twoDigits(n int) string { return fmt.Sprintf("%02d", n) }

func itoa(n int) string { return strconv.Itoa(n) }
