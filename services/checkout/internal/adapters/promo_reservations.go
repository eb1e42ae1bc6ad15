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
)

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
