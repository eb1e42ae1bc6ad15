package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

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
func (r *Renewer) Status(ctx context.Context, v Viewer) (*RenewalStatus, error) {
	sub, err := r.svc.MySubscription(ctx, v)
	if err != nil {
		return nil, err
	}
	st := &RenewalStatus{SubscriptionID: sub.ID, AutoRenew: sub.AutoRenew, RenewalDate: sub.TermEnd, Currency: sub.Currency, ChargedBy: chargedBy(sub)}
	var status, failure string
	var declines int
	var next time.Time
	var first, cardExp, lapsed *time.Time
	err = r.pool.QueryRow(ctx, `SELECT coalesce(rn.status, ''), coalesce(rn.declines, 0), coalesce(rn.next_attempt_at, s.term_end),
			rn.first_declined_at, coalesce(rn.last_failure_msg, ''), s.card_expires_at, s.lapsed_at
		FROM subscriptions s LEFT JOIN renewals rn ON rn.subscription_id = s.id AND rn.term_end = s.term_end WHERE s.id = $1`, sub.ID).
		Scan(&status, &declines, &next, &first, &failure, &cardExp, &lapsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errs.E(errs.NotFound, "You have no subscription yet.")
	}
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("read renewal: %w", err), "subscriptions are unavailable; try again")
	}
	st.Declines = declines
	st.CardExpiresFirst = cardExp != nil && !cardExp.After(sub.TermEnd)
	if pv, err := r.svc.RenewalPrice(ctx, sub.ID); err == nil {
		st.AmountInCents, st.Currency = pv.Invoice.TotalInCents, pv.Invoice.Currency
	}
	date := sub.TermEnd.UTC().Format("2006-01-02")
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
		if first != nil && len(r.o.Retries) > 0 {
			st.GraceEnds = first.Add(r.o.Retries[len(r.o.Retries)-1])
		}
		st.Message = "Your renewal payment failed: " + failure + " We will try again on " + next.UTC().Format("2006-01-02") +
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
func (r *Renewer) Invoices(ctx context.Context, v Viewer) ([]InvoiceSummary, error) {
	if v.AccountUUID == "" {
		return nil, errs.E(errs.Unauthorized, "Please log in to see your invoices.")
	}
	rows, err := r.pool.Query(ctx, `SELECT invoice_id::text, invoice_number, kind, currency, status, created_at,
			submission_key LIKE 'renewal:%', total_in_cents, is_eu, business_id <> '', billing_country
		FROM orders WHERE account_id = $1::uuid OR ($2 <> '' AND lower(email) = lower($2))
		ORDER BY created_at DESC, invoice_number DESC LIMIT 100`, nullable(domain.ExtractAccountID(v.AccountUUID)), domain.NormalizeEmail(v.Username))
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("list invoices: %w", err), "invoices are unavailable; try again")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (InvoiceSummary, error) {
		var i InvoiceSummary
		var eu, business bool
		var country string
		err := row.Scan(&i.InvoiceID, &i.InvoiceNumber, &i.Kind, &i.Currency, &i.Status, &i.Created, &i.Renewal, &i.TotalInCents, &eu, &business, &country)
		i.CanPrintInvoice = (eu || business || tax.IsEUCountry(country)) && i.Status != "refunded"
		return i, err
	})
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("list invoices: %w", err), "invoices are unavailable; try again")
	}
	return out, nil
}
