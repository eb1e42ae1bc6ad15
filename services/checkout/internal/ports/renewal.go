package ports

import (
	"context"
	"math"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/app"
)

// WithRenewals serves the /account page's renewal state and invoice history.
func (s *GRPC) WithRenewals(r *app.AccountRenewals) *GRPC { s.renewals = r; return s }

func (s *GRPC) GetRenewalStatus(ctx context.Context, _ *checkoutv1.GetRenewalStatusRequest) (*checkoutv1.GetRenewalStatusResponse, error) {
	if s.renewals == nil {
		return nil, errs.E(errs.Unavailable, "renewals are not served here")
	}
	st, err := s.renewals.Status(ctx, viewer(ctx))
	if err != nil {
		return nil, err
	}
	amount, declines, exp := clamp32(st.AmountInCents), int32(st.Declines), st.CardExpiresFirst
	return &checkoutv1.GetRenewalStatusResponse{SubscriptionId: st.SubscriptionID, AutoRenew: &st.AutoRenew, State: st.State,
		RenewalDate: day(st.RenewalDate), RenewalAmountInCents: &amount, Currency: st.Currency, ChargedBy: st.ChargedBy,
		Declines: &declines, NextAttemptDate: day(st.NextAttempt),
		LastFailureMessage: st.LastFailure, GraceEndsDate: day(st.GraceEnds),
		CardExpiresBeforeRenewal: &exp, Message: st.Message}, nil
}

func (s *GRPC) ListInvoices(ctx context.Context, _ *checkoutv1.ListInvoicesRequest) (*checkoutv1.ListInvoicesResponse, error) {
	if s.renewals == nil {
		return nil, errs.E(errs.Unavailable, "invoices are not served here")
	}
	list, err := s.renewals.Invoices(ctx, viewer(ctx))
	if err != nil {
		return nil, err
	}
	out := &checkoutv1.ListInvoicesResponse{Invoices: make([]*checkoutv1.InvoiceSummary, 0, len(list))}
	for _, i := range list {
		total, renewal, printable := clamp32(i.TotalInCents), i.Renewal, i.CanPrintInvoice
		out.Invoices = append(out.Invoices, &checkoutv1.InvoiceSummary{InvoiceId: i.InvoiceID, InvoiceNumber: i.InvoiceNumber,
			Created: day(i.Created), Kind: i.Kind, Renewal: &renewal, Currency: i.Currency, TotalInCents: &total,
			Status: i.Status, ReceiptUrl: "/buy/api/receipt/" + i.InvoiceID, CanPrintInvoice: &printable})
	}
	return out, nil
}

// clamp32: amounts on the wire are int32 (JSON numbers); see the README's Money note.
func clamp32(v int64) int32 { return int32(max(min(v, math.MaxInt32), math.MinInt32)) }
