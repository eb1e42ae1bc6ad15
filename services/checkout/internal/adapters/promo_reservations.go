package adapters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// holdsLimits reports whether a purchase takes something limited that its claim reserves.
func holdsLimits(p *order.Purchase) bool {
	return len(p.PromoCodes) > 0 || len(p.Gifts) > 0 || p.AccountBalanceInCents > 0
}

// reserveLimits reserves, in the transaction that claims (or reopens) key, everything its
// order takes that another order could take first: promotion redemptions, gift
// certificate amounts and the account balance. A pending submission holds what its stored
// purchase names; the row of each certificate and balance is locked while the others'
// holds are counted, so two submits spending the same balance see each other and the
// second is refused here, before any charge, instead of captured and refunded at the
// write. Locks are taken in one order (promotions, certificates by code, the balance).
func reserveLimits(ctx context.Context, q querier, key string, p *order.Purchase) error {
	if err := reservePromotions(ctx, q, key, p.AccountID, p.PromoCodes); err != nil {
		return err
	}
	for _, g := range giftsInLockOrder(p.Gifts) {
		ref := giftRefOf(g)
		var balance int64
		err := q.QueryRow(ctx, `SELECT balance_in_cents FROM gift_certificates WHERE code_hash = decode($1, 'hex') AND currency = $2 FOR UPDATE`, ref, p.Currency).Scan(&balance)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return unavailable(err, "lock gift certificate")
		}
		// A submission priced before codes were hashed names its certificate by code.
		var held int64
		if err := q.QueryRow(ctx, `SELECT coalesce(sum((g->>'amountInCents')::bigint), 0)
			FROM submissions s CROSS JOIN LATERAL jsonb_array_elements(coalesce(s.purchase->'purchase'->'gifts', '[]'::jsonb)) g
			WHERE s.status = 'pending' AND s.key <> $2
			AND coalesce(g->>'ref', encode(sha256(convert_to(upper(btrim(g->>'code')), 'UTF8')), 'hex')) = $1`, ref, key).Scan(&held); err != nil {
			return unavailable(err, "count gift certificate holds")
		}
		if balance-held < g.AmountInCents {
			return balanceRefused("A gift certificate of this order no longer covers its amount.", promotion.CodeGiftSpent)
		}
	}
	if b := p.AccountBalanceInCents; b > 0 {
		var balance int64
		err := q.QueryRow(ctx, `SELECT balance_in_cents FROM account_balances WHERE account_id = $1 AND currency = $2 FOR UPDATE`, p.AccountID, p.Currency).Scan(&balance)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return unavailable(err, "lock account balance")
		}
		var held int64
		if err := q.QueryRow(ctx, `SELECT coalesce(sum((s.purchase->'purchase'->>'accountBalanceInCents')::bigint), 0)
			FROM submissions s WHERE s.status = 'pending' AND s.key <> $2 AND s.purchase->'purchase'->>'accountId' = $1`, p.AccountID, key).Scan(&held); err != nil {
			return unavailable(err, "count account balance holds")
		}
		if balance-held < b {
			return balanceRefused("Your account balance changed.", promotion.CodeBalanceHeld)
		}
	}
	return nil
}

// balanceRefused is a submit refused before the charge because a balance it pays from no
// longer covers its share: nothing was charged, which is true here.
func balanceRefused(msg, reason string) error {
	m := msg + " Nothing was charged. Please review your order."
	return &errs.Error{Code: errs.Conflict, Reason: reason, Message: m, Errors: []string{msg}}
}

// reservePromotions reserves the redemptions of key's promotion codes in the transaction
// that claims the key, before anything is charged (issue 42): each promotion row is locked
// while its redemptions and the pending submissions' reservations are counted, so
// concurrent submits of a code's last redemption (or of an account's single use) see each
// other and all but one are refused here, with nothing captured. The order's write
// redeems the code (redeem) under the same lock.
func reservePromotions(ctx context.Context, q querier, key, accountID string, codes []string) error {
	seen := make([]string, 0, len(codes))
	for _, c := range codes {
		code := strings.ToUpper(strings.TrimSpace(c))
		if code == "" || slices.Contains(seen, code) {
			continue
		}
		seen = append(seen, code)
		if err := reservePromotion(ctx, q, key, accountID, code); err != nil {
			return err
		}
	}
	return nil
}

func reservePromotion(ctx context.Context, q querier, key, accountID, code string) error {
	var max int
	err := q.QueryRow(ctx, `SELECT max_redemptions FROM promotions WHERE code = $1 FOR UPDATE`, code).Scan(&max)
	if errors.Is(err, pgx.ErrNoRows) {
		return codeRefused(code, promotion.CodeNotValid, promotion.MsgNotValid)
	}
	if err != nil {
		return unavailable(err, "lock promotion")
	}
	var taken, mine int
	if err := q.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM promotion_redemptions WHERE code = $1)
			+ (SELECT count(*) FROM promotion_reservations r JOIN submissions s ON s.key = r.submission_key
				WHERE r.code = $1 AND s.status = 'pending' AND r.submission_key <> $2),
			(SELECT count(*) FROM promotion_redemptions WHERE code = $1 AND $3 <> '' AND account_id::text = $3)
			+ (SELECT count(*) FROM promotion_reservations r JOIN submissions s ON s.key = r.submission_key
				WHERE r.code = $1 AND $3 <> '' AND r.account_id = $3 AND s.status = 'pending' AND r.submission_key <> $2)`,
		code, key, accountID).Scan(&taken, &mine); err != nil {
		return unavailable(err, "count promotion redemptions")
	}
	switch {
	case mine > 0:
		return codeRefused(code, promotion.CodeAlreadyUsed, promotion.MsgCodeUsed)
	case max > 0 && taken >= max:
		return codeRefused(code, promotion.CodeNotValid, promotion.MsgNotValid)
	}
	if _, err := q.Exec(ctx, `INSERT INTO promotion_reservations (submission_key, code, account_id) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, key, code, accountID); err != nil {
		return unavailable(err, "reserve promotion")
	}
	return nil
}

// codeRefused is a submit refused before the charge because a promotion code can no longer
// be redeemed: the code's own message (spec 000 §8), and that nothing was charged, which is
// true here.
func codeRefused(code, reason, msg string) error {
	m := fmt.Sprintf("%s (%s) Nothing was charged. Please remove the code and review your order.", msg, code)
	return &errs.Error{Code: errs.Conflict, Reason: reason, Message: m, Errors: []string{msg}}
}

// giftsInLockOrder answers gifts sorted by certificate: every statement that locks or
// debits several certificates takes them in this one order, so two orders spending the
// same certificates never wait on each other in a cycle.
func giftsInLockOrder(gifts []order.GiftDebit) []order.GiftDebit {
	sorted := slices.Clone(gifts)
	slices.SortFunc(sorted, func(a, b order.GiftDebit) int { return strings.Compare(giftRefOf(a), giftRefOf(b)) })
	return sorted
}

// giftRefOf is the certificate a debit names (promotion.GiftRef), also for a debit priced
// before codes were hashed.
func giftRefOf(g order.GiftDebit) string {
	if g.Ref != "" {
		return g.Ref
	}
	return promotion.GiftRef(g.Code)
}
