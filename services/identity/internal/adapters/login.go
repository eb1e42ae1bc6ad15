package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// keyOrNil is a bucket's key for login_attempt: NULL when there is none.
func keyOrNil(b iapp.Bucket) any {
	if b.Key == "" {
		return nil
	}
	return b.Key
}

func every(b iapp.Bucket) int64 { return max(b.Rule.Every.Microseconds(), 1) }
func burst(b iapp.Bucket) int64 { return int64(max(b.Rule.Burst, 1)) }

// BeginLogin counts the attempt with login_attempt (migration 0007) and reads the account
// in one pipelined batch: one round trip and one implicit transaction, the attempt's only
// write before its password is verified.
func (s *Store) BeginLogin(ctx context.Context, b iapp.LoginBuckets, email string, now time.Time) (iapp.LoginStart, error) {
	var st iapp.LoginStart
	var wait int64
	batch := &pgx.Batch{}
	batch.Queue(`SELECT ok, wait_us FROM login_attempt($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		keyOrNil(b.Account), b.Pair.Key, keyOrNil(b.IP), now.UnixMicro(),
		every(b.Account), burst(b.Account), every(b.Pair), burst(b.Pair), int64(max(b.PairUnderAttack, 1)),
		every(b.IP), burst(b.IP)).QueryRow(func(row pgx.Row) error { return row.Scan(&st.OK, &wait) })
	batch.Queue(`SELECT `+accountCols+` FROM accounts a WHERE a.email = $1`, email).QueryRow(func(row pgx.Row) error {
		a, err := scanAccount(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		st.Account, st.Found = a, err == nil
		return err
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return iapp.LoginStart{}, fmt.Errorf("begin login: %w", err)
	}
	st.Wait = time.Duration(wait) * time.Microsecond
	return st, nil
}

// FinishLogin stores the session, revokes the previous one and settles the buckets, in
// one pipelined batch (one round trip, one implicit transaction).
func (s *Store) FinishLogin(ctx context.Context, ss iapp.NewSession, settle iapp.LoginSettle) (string, error) {
	var id string
	batch := &pgx.Batch{}
	if ss.Previous != nil {
		batch.Queue(`UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`, ss.Previous, ss.Now)
	}
	batch.Queue(`INSERT INTO sessions (token_hash, account_uuid, created_at, last_seen_at, expires_at, client_ip, user_agent)
		VALUES ($1, $2, $3, $3, $4, $5, $6) RETURNING id::text`, ss.Hash, ss.AccountUUID, ss.Now, ss.Expires, ss.IP, truncate(ss.UserAgent, 512)).
		QueryRow(func(row pgx.Row) error { return row.Scan(&id) })
	if len(settle.Return) > 0 || len(settle.Forget) > 0 {
		keys, amounts := make([]string, len(settle.Return)), make([]int64, len(settle.Return))
		for i, b := range settle.Return {
			keys[i], amounts[i] = b.Key, every(b)
		}
		// One statement: the tokens given back, and the forgotten buckets deleted.
		batch.Queue(`WITH forgot AS (DELETE FROM rate_limits WHERE key = ANY($4::text[]))
			UPDATE rate_limits r SET tat = GREATEST(r.tat - d.n, $3::bigint)
			FROM unnest($1::text[], $2::bigint[]) AS d(k, n) WHERE r.key = d.k`,
			keys, amounts, ss.Now.UnixMicro(), nonNil(settle.Forget))
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return "", fmt.Errorf("finish login: %w", err)
	}
	return id, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
