// Package adapters is checkout's PostgreSQL storage (subscriptions, account balances,
// promotions, gift certificates) and its client of the catalog service.
package adapters

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// Migrations are the checkout database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is checkout's database.
type Store struct {
	pool *pgxpool.Pool
	// The code attempts are counted by the platform's limiter in rate_limits.
	*ratelimit.PostgreSQL
}

// NewStore uses pool, already migrated.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, PostgreSQL: ratelimit.NewPostgreSQL(pool)}
}

const subCols = `id::text, account_id::text, email, name, plan_code, add_ons, quantity, currency, price_in_cents,
	term_start, term_end, payment_source, payment_method, billing_method, licensing_method,
	coalesce(parent_account_id::text, ''), coalesce(organization_id::text, ''), military, valid, business_id, billing_country, billing_zip,
	auto_renew, billing_name, billing_address, billing_address2, billing_city, billing_state, version, earlier_terms`

func scanSub(row pgx.Row) (*domain.Subscription, error) {
	var s domain.Subscription
	err := row.Scan(&s.ID, &s.AccountID, &s.Email, &s.Name, &s.PlanCode, &s.AddOns, &s.Quantity, &s.Currency, &s.PriceInCents,
		&s.TermStart, &s.TermEnd, &s.PaymentSource, &s.PaymentMethod, &s.BillingMethod, &s.LicensingMethod,
		&s.ParentAccountID, &s.OrganizationID, &s.Military, &s.Valid, &s.BusinessID, &s.BillingCountry, &s.BillingZip,
		&s.AutoRenew, &s.BillingName, &s.BillingAddress, &s.BillingAddress2, &s.BillingCity, &s.BillingState, &s.Version, &s.EarlierTerms)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read subscription: %w", err)
	}
	return &s, nil
}

// Subscription answers a subscription by id, or nil. Its allocations are not here: the
// allocation service owns them (the app layer asks it).
func (s *Store) Subscription(ctx context.Context, id string) (*domain.Subscription, error) {
	return scanSub(s.pool.QueryRow(ctx, `SELECT `+subCols+` FROM subscriptions WHERE id = $1`, id))
}

// Subscriptions answers the subscriptions of ids that exist, by id, in one statement (the
// renewal pass reads a claimed batch's subscriptions with it).
func (s *Store) Subscriptions(ctx context.Context, ids []string) (map[string]*domain.Subscription, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+subCols+` FROM subscriptions WHERE id = ANY($1::text[]::uuid[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	out := make(map[string]*domain.Subscription, len(ids))
	for rows.Next() {
		sub, err := scanSub(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out[sub.ID] = sub
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	return out, nil
}

// SubscriptionOf answers the latest subscription of an account (by id, or else by e-mail), or nil.
func (s *Store) SubscriptionOf(ctx context.Context, accountID, email string) (*domain.Subscription, error) {
	if accountID != "" {
		return scanSub(s.pool.QueryRow(ctx, `SELECT `+subCols+` FROM subscriptions WHERE account_id = $1 ORDER BY term_end DESC LIMIT 1`, accountID))
	}
	if email != "" {
		return scanSub(s.pool.QueryRow(ctx, `SELECT `+subCols+` FROM subscriptions WHERE lower(email) = lower($1) ORDER BY term_end DESC LIMIT 1`, email))
	}
	return nil, nil
}

// PutSubscription inserts or replaces a subscription (the dev seed) and publishes its
// subscription-changed event. cat tells the licensing method of each add-on, exactly as an
// order's event does (subscription.AddOns), so the allocation service files the same pools
// for a seeded subscription as for a real purchase of it.
func (s *Store) PutSubscription(ctx context.Context, sub *domain.Subscription, cat *domain.Catalog) error {
	nullable := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO subscriptions (id, account_id, email, name, plan_code, add_ons, quantity, currency,
		price_in_cents, term_start, term_end, payment_source, payment_method, billing_method, licensing_method,
		parent_account_id, organization_id, military, valid, business_id, billing_country, billing_zip)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22)
		ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, email = EXCLUDED.email, name = EXCLUDED.name,
		plan_code = EXCLUDED.plan_code, add_ons = EXCLUDED.add_ons, quantity = EXCLUDED.quantity, currency = EXCLUDED.currency,
		price_in_cents = EXCLUDED.price_in_cents, term_start = EXCLUDED.term_start, term_end = EXCLUDED.term_end,
		payment_source = EXCLUDED.payment_source, payment_method = EXCLUDED.payment_method, billing_method = EXCLUDED.billing_method,
		licensing_method = EXCLUDED.licensing_method, parent_account_id = EXCLUDED.parent_account_id,
		organization_id = EXCLUDED.organization_id, military = EXCLUDED.military, valid = EXCLUDED.valid,
		business_id = EXCLUDED.business_id, billing_country = EXCLUDED.billing_country, billing_zip = EXCLUDED.billing_zip,
		auto_renew = true, earlier_terms = '[]', version = subscriptions.version + 1, updated_at = now()
		RETURNING version`,
			sub.ID, sub.AccountID, sub.Email, sub.Name, sub.PlanCode, sub.AddOns, sub.Quantity, sub.Currency, sub.PriceInCents,
			sub.TermStart, sub.TermEnd, sub.PaymentSource, sub.PaymentMethod, sub.BillingMethod, sub.LicensingMethod,
			nullable(sub.ParentAccountID), nullable(sub.OrganizationID), sub.Military, sub.Valid, sub.BusinessID, sub.BillingCountry, sub.BillingZip).Scan(&sub.Version)
		if err != nil {
			return fmt.Errorf("store subscription %s: %w", sub.ID, err)
		}
		// Consumers (identity's plan flags, allocation's licence pools) learn the state.
		sub.AutoRenew = true
		ev, err := subscription.Changed{Sub: sub, Change: "seed", At: time.Now(), Catalog: cat}.Event()
		if err != nil {
			return err
		}
		return kafka.Enqueue(ctx, tx, telemetry.Propagator(), ev)
	})
}

// Account answers what pricing needs to know about an account (the zero Account with
// FirstTime set when it has no subscription).
func (s *Store) Account(ctx context.Context, accountID string, sub *domain.Subscription) (domain.Account, error) {
	a := domain.Account{FirstTime: sub == nil}
	if sub != nil {
		for _, code := range sub.AddOns {
			if strings.HasPrefix(code, "jepp_") {
				a.HasChartCoverage = true
			}
		}
	}
	if accountID == "" {
		return a, nil
	}
	err := s.pool.QueryRow(ctx, `SELECT currency, balance_in_cents FROM account_balances WHERE account_id = $1`, accountID).Scan(&a.BalanceCurrency, &a.BalanceInCents)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("read account balance: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT code FROM promotion_redemptions WHERE account_id = $1`, accountID)
	if err != nil {
		return a, fmt.Errorf("read redemptions: %w", err)
	}
	a.UsedCodes, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return a, fmt.Errorf("read redemptions: %w", err)
	}
	return a, nil
}

// Accounts is Account for the subscriptions of a batch (the renewal pass), keyed by
// account id, in two statements.
func (s *Store) Accounts(ctx context.Context, subs []*domain.Subscription) (map[string]domain.Account, error) {
	out := make(map[string]domain.Account, len(subs))
	ids := make([]string, 0, len(subs))
	for _, sub := range subs {
		if sub.AccountID == "" {
			continue
		}
		a, _ := s.Account(ctx, "", sub) // without an account id: what the subscription alone tells, no query
		out[sub.AccountID] = a
		ids = append(ids, sub.AccountID)
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT account_id::text, currency, balance_in_cents FROM account_balances WHERE account_id = ANY($1::text[]::uuid[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("read account balances: %w", err)
	}
	var id, cur string
	var bal int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &cur, &bal}, func() error {
		a := out[id]
		a.BalanceCurrency, a.BalanceInCents = cur, bal
		out[id] = a
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read account balances: %w", err)
	}
	rows, err = s.pool.Query(ctx, `SELECT account_id::text, code FROM promotion_redemptions WHERE account_id = ANY($1::text[]::uuid[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("read redemptions: %w", err)
	}
	var code string
	if _, err := pgx.ForEachRow(rows, []any{&id, &code}, func() error {
		a := out[id]
		a.UsedCodes = append(a.UsedCodes, code)
		out[id] = a
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read redemptions: %w", err)
	}
	return out, nil
}

// SetBalance sets an account's balance.
func (s *Store) SetBalance(ctx context.Context, accountID, currency string, cents int64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO account_balances (account_id, currency, balance_in_cents) VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET currency = EXCLUDED.currency, balance_in_cents = EXCLUDED.balance_in_cents`, accountID, currency, cents)
	if err != nil {
		return fmt.Errorf("store balance: %w", err)
	}
	return nil
}

// Promotions answers every promotion with its redemption count, keyed by lower-case code.
// They are few and change rarely; the service keeps them in memory and reloads them.
func (s *Store) Promotions(ctx context.Context) (map[string]*promotion.Promotion, error) {
	rows, err := s.pool.Query(ctx, `SELECT p.code, kind, percent_bp, amount_in_cents, coalesce(currency, ''), eligible_plans,
		first_time_only, applies_new, applies_renewal, applies_upgrade, business_allowed, min_amount_cents,
		valid_from, valid_until, max_redemptions, (SELECT count(*) FROM promotion_redemptions r WHERE r.code = p.code),
		notice, notice_message, notice_audience, always_view, remove_on_notice FROM promotions p`)
	if err != nil {
		return nil, fmt.Errorf("read promotions: %w", err)
	}
	defer rows.Close()
	out := map[string]*promotion.Promotion{}
	for rows.Next() {
		var p promotion.Promotion
		var from, until *time.Time
		if err := rows.Scan(&p.Code, &p.Kind, &p.PercentBP, &p.AmountInCents, &p.Currency, &p.EligiblePlans, &p.FirstTimeOnly,
			&p.AppliesNew, &p.AppliesRenewal, &p.AppliesUpgrade, &p.BusinessAllowed, &p.MinAmountInCents, &from, &until,
			&p.MaxRedemptions, &p.Redemptions, &p.Notice, &p.NoticeMessage, &p.NoticeAudience, &p.AlwaysView, &p.RemoveOnNotice); err != nil {
			return nil, fmt.Errorf("read promotion: %w", err)
		}
		if from != nil {
			p.ValidFrom = *from
		}
		if until != nil {
			p.ValidUntil = *until
		}
		out[strings.ToLower(p.Code)] = &p
	}
	return out, rows.Err()
}

// PromotionUses answers, by lower-case code, how many of each code's redemptions are
// taken right now: redeemed, or reserved by a submission still pending (issue 42: a
// limited code is checked live, never from the copy kept in memory).
func (s *Store) PromotionUses(ctx context.Context, codes []string) (map[string]int, error) {
	upper := make([]string, len(codes))
	for i, c := range codes {
		upper[i] = strings.ToUpper(c)
	}
	rows, err := s.pool.Query(ctx, `SELECT p.code,
			(SELECT count(*) FROM promotion_redemptions r WHERE r.code = p.code)
			+ (SELECT count(*) FROM promotion_reservations r JOIN submissions s ON s.key = r.submission_key
				WHERE r.code = p.code AND s.status = 'pending')
		FROM promotions p WHERE p.code = ANY($1::text[])`, upper)
	if err != nil {
		return nil, fmt.Errorf("count promotion redemptions: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var code string
		var n int
		if err := rows.Scan(&code, &n); err != nil {
			return nil, fmt.Errorf("count promotion redemptions: %w", err)
		}
		out[strings.ToLower(code)] = n
	}
	return out, rows.Err()
}

// PutPromotion inserts or replaces a promotion.
func (s *Store) PutPromotion(ctx context.Context, p *promotion.Promotion) error {
	ts := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t
	}
	cur := any(nil)
	if p.Currency != "" {
		cur = p.Currency
	}
	plans := p.EligiblePlans
	if plans == nil {
		plans = []string{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO promotions (code, kind, percent_bp, amount_in_cents, currency, eligible_plans, first_time_only,
		applies_new, applies_renewal, applies_upgrade, business_allowed, min_amount_cents, valid_from, valid_until, max_redemptions,
		notice, notice_message, notice_audience, always_view, remove_on_notice)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)
		ON CONFLICT (code) DO UPDATE SET kind = EXCLUDED.kind, percent_bp = EXCLUDED.percent_bp, amount_in_cents = EXCLUDED.amount_in_cents,
		currency = EXCLUDED.currency, eligible_plans = EXCLUDED.eligible_plans, first_time_only = EXCLUDED.first_time_only,
		applies_new = EXCLUDED.applies_new, applies_renewal = EXCLUDED.applies_renewal, applies_upgrade = EXCLUDED.applies_upgrade,
		business_allowed = EXCLUDED.business_allowed, min_amount_cents = EXCLUDED.min_amount_cents, valid_from = EXCLUDED.valid_from,
		valid_until = EXCLUDED.valid_until, max_redemptions = EXCLUDED.max_redemptions, notice = EXCLUDED.notice,
		notice_message = EXCLUDED.notice_message, notice_audience = EXCLUDED.notice_audience, always_view = EXCLUDED.always_view,
		remove_on_notice = EXCLUDED.remove_on_notice`,
		strings.ToUpper(p.Code), p.Kind, p.PercentBP, p.AmountInCents, cur, plans, p.FirstTimeOnly, p.AppliesNew, p.AppliesRenewal,
		p.AppliesUpgrade, p.BusinessAllowed, p.MinAmountInCents, ts(p.ValidFrom), ts(p.ValidUntil), p.MaxRedemptions,
		p.Notice, p.NoticeMessage, p.NoticeAudience, p.AlwaysView, p.RemoveOnNotice)
	if err != nil {
		return fmt.Errorf("store promotion %s: %w", p.Code, err)
	}
	return nil
}

// Redeem records that an account used a promotion (idempotent).
func (s *Store) Redeem(ctx context.Context, code, accountID string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO promotion_redemptions (code, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, strings.ToUpper(code), accountID)
	if err != nil {
		return fmt.Errorf("redeem %s: %w", code, err)
	}
	return nil
}

// Gifts answers the named gift certificates, keyed by lower-case code; unknown codes are
// absent. They are looked up by the hash of the code (promotion.GiftCodeHash), the only
// form stored.
func (s *Store) Gifts(ctx context.Context, codes []string) (map[string]*promotion.GiftCertificate, error) {
	out := map[string]*promotion.GiftCertificate{}
	if len(codes) == 0 {
		return out, nil
	}
	hashes := make([][]byte, len(codes))
	byHash := make(map[string]string, len(codes))
	for i, c := range codes {
		hashes[i] = promotion.GiftCodeHash(c)
		byHash[string(hashes[i])] = strings.ToUpper(strings.TrimSpace(c))
	}
	rows, err := s.pool.Query(ctx, `SELECT code_hash, currency, balance_in_cents FROM gift_certificates WHERE code_hash = ANY($1)`, hashes)
	if err != nil {
		return nil, fmt.Errorf("read gift certificates: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g promotion.GiftCertificate
		var hash []byte
		if err := rows.Scan(&hash, &g.Currency, &g.BalanceInCents); err != nil {
			return nil, fmt.Errorf("read gift certificate: %w", err)
		}
		g.Code = byHash[string(hash)]
		out[strings.ToLower(g.Code)] = &g
	}
	return out, rows.Err()
}

// PutGift inserts or replaces a gift certificate (the development seed), stored by the
// hash of its code.
func (s *Store) PutGift(ctx context.Context, g *promotion.GiftCertificate) error {
	ref := promotion.GiftRef(g.Code)
	_, err := s.pool.Exec(ctx, `INSERT INTO gift_certificates (code, code_hash, code_hint, currency, balance_in_cents) VALUES (upper($1), $2, $3, $4, $5)
		ON CONFLICT (code_hash) DO UPDATE SET currency = EXCLUDED.currency, balance_in_cents = EXCLUDED.balance_in_cents`,
		ref, promotion.GiftCodeHash(g.Code), promotion.MaskGiftCode(g.Code), g.Currency, g.BalanceInCents)
	if err != nil {
		return fmt.Errorf("store gift certificate %s: %w", promotion.MaskGiftCode(g.Code), err)
	}
	return nil
}

// SetAutoRenew implements app.SubscriptionStore: in one transaction it locks the
// subscription, sets auto_renew, and moves the term's renewal (turned off: a due renewal
// not leased by a worker becomes 'ending', and its declines are read; turned on: an
// 'ending' one is due again), then enqueues the events the use case answers.
func (s *Store) SetAutoRenew(ctx context.Context, subscriptionID string, on bool,
	events func(app.AutoRenewChange) ([]kafka.Event, error)) (*domain.Subscription, error) {
	var out *domain.Subscription
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var was bool
		if err := tx.QueryRow(ctx, `SELECT auto_renew FROM subscriptions WHERE id = $1 FOR UPDATE`, subscriptionID).Scan(&was); err != nil {
			return fmt.Errorf("set auto-renew: %w", err)
		}
		sub, err := scanSub(tx.QueryRow(ctx, `UPDATE subscriptions SET auto_renew = $2, version = version + 1, updated_at = now()
			WHERE id = $1 RETURNING `+subCols, subscriptionID, on))
		if err != nil || sub == nil {
			return fmt.Errorf("set auto-renew: %w", errors.Join(err, errors.New("no such subscription")))
		}
		c := app.AutoRenewChange{Sub: sub, Was: was}
		switch {
		case was && !on:
			if c.Declines, c.LastFailure, err = stopRenewal(ctx, tx, sub); err != nil {
				return err
			}
		case !was && on:
			if _, err := tx.Exec(ctx, `UPDATE renewals SET status = 'due', next_attempt_at = least(next_attempt_at, now()),
				updated_at = now() WHERE subscription_id = $1 AND term_end = $2 AND status = 'ending'`, sub.ID, sub.TermEnd); err != nil {
				return fmt.Errorf("resume renewal: %w", err)
			}
		}
		evs, err := events(c)
		if err != nil {
			return err
		}
		out = sub
		return kafka.Enqueue(ctx, tx, telemetry.Propagator(), evs...)
	})
	return out, err
}

// stopRenewal makes the term's due renewal 'ending' in tx (no charge; the pass ends the
// term) and answers its declines and last failure (a renewal in its grace period has
// some). A retry in flight (leased) is not taken over: it reads auto-renew off before
// charging, and a later attempt ends the term.
func stopRenewal(ctx context.Context, tx pgx.Tx, sub *domain.Subscription) (declines int, reason string, err error) {
	err = tx.QueryRow(ctx, `SELECT declines, coalesce(last_failure_msg, '') FROM renewals
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' FOR UPDATE`, sub.ID, sub.TermEnd).Scan(&declines, &reason)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, "", fmt.Errorf("read renewal: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE renewals SET status = 'ending', lease_until = NULL, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND (lease_until IS NULL OR `+lease.Expired+`)`,
		sub.ID, sub.TermEnd); err != nil {
		return 0, "", fmt.Errorf("stop renewal: %w", err)
	}
	return declines, reason, nil
}

// SetBillingContact saves a subscription's billing contact.
func (s *Store) SetBillingContact(ctx context.Context, subscriptionID string, c domain.BillingContact) error {
	_, err := s.pool.Exec(ctx, `UPDATE subscriptions SET billing_name = $2, billing_address = $3, billing_address2 = $4,
		billing_city = $5, billing_state = $6, billing_zip = $7, billing_country = $8, updated_at = now() WHERE id = $1`,
		subscriptionID, c.Name, c.PhysicalAddress, c.PhysicalAddress2, c.City, c.StateProvince, c.PostalCode, c.Country)
	if err != nil {
		return fmt.Errorf("save billing contact: %w", err)
	}
	return nil
}

var _ app.SeedStore = (*Store)(nil)
