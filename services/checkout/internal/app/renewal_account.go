package app

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// AccountRenewals is the /account page's use case of the renewals: the session's renewal
// state and invoice history (Renewer.Account).
type AccountRenewals struct {
	svc   *Service
	store RenewalHistory
	// retries is the renewal's retry schedule (the grace period's end).
	retries []time.Duration
}

// RenewalStatus is a subscription's renewal as the /account page shows it.
type RenewalStatus struct {
	SubscriptionID string
	AutoRenew      bool
	// State: scheduled, retrying, lapsed, ending, not-charged.
	State            string
	RenewalDate      time.Time
	AmountInCents    int64
	Currency         string
	ChargedBy        string
	Declines         int
	NextAttempt      time.Time // retrying only
	LastFailure      string
	GraceEnds        time.Time // retrying only: the last scheduled retry
	CardExpiresFirst bool
	Message          string
}

// chargedBy names how a subscription pays: only CREDIT_CARD is charged by the pass.
func chargedBy(s *domain.Subscription) string {
	switch {
	case s.PaymentSource == domain.PaymentThirdParty:
		return domain.PaymentThirdParty
	case s.PaymentSource == domain.PaymentComplimentary:
		return domain.PaymentComplimentary
	case s.PaymentSource != "CREDIT_CARD" || (s.PaymentMethod != "" && s.PaymentMethod != "CREDIT_CARD"):
		return "INVOICE"
	}
	return "CREDIT_CARD"
}

// Status answers the session's subscription's renewal state.
func (r *AccountRenewals) Status(ctx context.Context, v Viewer) (*RenewalStatus, error) {
	sub, err := r.svc.MySubscription(ctx, v)
	if err != nil {
		return nil, err
	}
	st := &RenewalStatus{SubscriptionID: sub.ID, AutoRenew: sub.AutoRenew, RenewalDate: sub.TermEnd, Currency: sub.Currency, ChargedBy: chargedBy(sub)}
	row, err := r.store.Status(ctx, sub.ID)
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
	}
	if row == nil {
		return nil, errs.E(errs.NotFound, "You have no subscription yet.")
	}
	status, failure, declines, next, first, cardExp, lapsed := row.Status, row.LastFailure, row.Declines, row.NextAttempt,
		row.FirstDeclined, row.CardExpires, row.Lapsed
	st.Declines = declines
	st.CardExpiresFirst = cardExp != nil && !cardExp.After(sub.TermEnd)
	if pv, err := r.svc.RenewalPrice(ctx, sub.ID); err == nil {
		st.AmountInCents, st.Currency = pv.Invoice.TotalInCents, pv.Invoice.Currency
	}
	date := domain.FormatDate(sub.TermEnd)
	switch {
	case lapsed != nil || status == "lapsed" || status == "ended":
		st.State, st.Message = "lapsed", "Your subscription ended on "+date+". Renew it to get your charts and features back."
	case st.ChargedBy != "CREDIT_CARD":
		st.State, st.Message = "not-charged", "Your subscription is not renewed by card. Please contact sales to renew it."
	case (!sub.AutoRenew || status == "ending") && declines > 0:
		// Turned off in the grace period: the retries stop and the ended term is not renewed.
		st.State, st.LastFailure = "ending", failure
		st.Message = "Automatic renewal is off: your renewal payment was not made, so your subscription ends now (its term ended on " + date + ")."
	case !sub.AutoRenew || status == "ending":
		st.State, st.Message = "ending", "Automatic renewal is off: your subscription ends on "+date+"."
	case status == "due" && declines > 0:
		st.State, st.NextAttempt, st.LastFailure = "retrying", next, failure
		if first != nil && len(r.retries) > 0 {
			st.GraceEnds = first.Add(r.retries[len(r.retries)-1])
		}
		st.Message = "Your renewal payment failed: " + failure + " We will try again on " + domain.FormatDate(next) +
			". Update your payment method to retry now."
	default:
		st.State, st.Message = "scheduled", "Your subscription renews on "+date+"."
	}
	return st, nil
}

// InvoiceSummary is one line of the account's invoice history.
type InvoiceSummary struct {
	InvoiceID, InvoiceNumber, Kind, Currency, Status string
	Created                                          time.Time
	Renewal                                          bool
	TotalInCents                                     int64
	// CanPrintInvoice: the receipt's rule (spec 001 §6), never on a refund.
	CanPrintInvoice bool
}

// Invoices answers the session's account's invoices (by account id, else e-mail), newest
// first, at most 100.
func (r *AccountRenewals) Invoices(ctx context.Context, v Viewer) ([]InvoiceSummary, error) {
	if v.AccountUUID == "" {
		return nil, errs.E(errs.Unauthorized, "Please log in to see your invoices.")
	}
	rows, err := r.store.Invoices(ctx, domain.ExtractAccountID(v.AccountUUID), domain.NormalizeEmail(v.Username))
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, err, "invoices are unavailable; try again")
	}
	out := make([]InvoiceSummary, len(rows))
	for n, row := range rows {
		out[n] = row.InvoiceSummary
		out[n].CanPrintInvoice = (row.EU || row.Business || tax.IsEUCountry(row.BillingCountry)) && row.Status != "refunded"
	}
	return out, nil
}
