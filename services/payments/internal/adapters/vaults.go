package adapters

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

const vaultCols = `id, idempotency_key, request_hash, status, customer_id, method_token, method_kind, card_brand, card_last4,
	card_exp_month, card_exp_year, wallet_email, cardholder_name, failure_code, failure_message, reference, created_at, updated_at`

func scanVault(row pgx.Row) (domain.Vault, error) {
	var v domain.Vault
	var status, kind, brand string
	err := row.Scan(&v.ID, &v.IdempotencyKey, &v.RequestHash, &status, &v.CustomerID, &v.Method.Token, &kind, &brand,
		&v.Method.Card.Last4, &v.Method.Card.ExpMonth, &v.Method.Card.ExpYear, &v.Method.Email, &v.Method.CardholderName,
		&v.FailureCode, &v.FailureMessage, &v.Reference, &v.CreatedAt, &v.UpdatedAt)
	v.Status, v.Method.Kind, v.Method.Card.Brand = domain.VaultStatus(status), domain.MethodKind(kind), domain.Brand(brand)
	return v, err
}

// Vault runs the idempotent vault protocol in one transaction, as Charge does: the key's
// row is locked first (a concurrent request with the key waits on the unique index, then
// replays); a different request under the key is a Conflict; a stored outcome (vaulted or
// declined) is answered as stored (replayed); otherwise step asks the processor, and the
// outcome, the method on file it makes and its event are committed together. An error of
// step (the processor unreachable) leaves nothing behind: the key may be retried.
func (s *Store) Vault(ctx context.Context, v domain.Vault, step app.VaultStep) (out domain.Vault, replayed bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The row is inserted pending and only ever committed decided: the insert is what
		// makes concurrent duplicates wait.
		tag, err := tx.Exec(ctx, `INSERT INTO vaults (id, idempotency_key, request_hash, status, customer_id, reference,
			created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (idempotency_key) DO NOTHING`,
			v.ID, v.IdempotencyKey, v.RequestHash, string(domain.VaultPending), v.CustomerID, v.Reference, v.CreatedAt)
		if err != nil {
			return fmt.Errorf("insert vault: %w", err)
		}
		if tag.RowsAffected() == 0 {
			cur, err := scanVault(tx.QueryRow(ctx, `SELECT `+vaultCols+` FROM vaults WHERE idempotency_key = $1`, v.IdempotencyKey))
			if err != nil {
				return fmt.Errorf("read vault by key: %w", err)
			}
			if string(cur.RequestHash) != string(v.RequestHash) {
				return domain.ErrKeyReused
			}
			out, replayed = cur, true
			return nil
		}
		adopt, err := step(ctx, &v)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE vaults SET status = $2, method_token = $3, method_kind = $4, card_brand = $5,
			card_last4 = $6, card_exp_month = $7, card_exp_year = $8, wallet_email = $9, cardholder_name = $10,
			failure_code = $11, failure_message = $12, updated_at = $13 WHERE id = $1`,
			v.ID, string(v.Status), v.Method.Token, string(v.Method.Kind), string(v.Method.Card.Brand), v.Method.Card.Last4,
			v.Method.Card.ExpMonth, v.Method.Card.ExpYear, v.Method.Email, v.Method.CardholderName, v.FailureCode,
			v.FailureMessage, v.UpdatedAt); err != nil {
			return fmt.Errorf("save vault %s: %w", v.ID, err)
		}
		if adopt != nil {
			if err := s.adopt(ctx, tx, *adopt); err != nil {
				return err
			}
		}
		out = v
		return nil
	})
	return out, replayed, err
}

// CountVaults answers how many vault rows hold key (tests of the exactly-once rule).
func (s *Store) CountVaults(ctx context.Context, key string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM vaults WHERE idempotency_key = $1`, key).Scan(&n)
	return n, err
}

// adoptSQL stores an app.Adoption in one statement: the method's display data; the profile,
// when the method becomes the one on file; and, only then, the event. Whether it becomes
// the one on file is decided on the profile row as the upsert locks it (a concurrent change
// of the profile is waited for and seen), by the rule of domain.BillingProfile.ChangeLocked
// ($15, $16: the locked payment and period) and the adoption's: when none is on file or
// MakeDefault ($17), and not when it is already. A new profile is the default one (billing
// period $14) with the method. $13 payment type of the method, $18-$21 the event's outbox row.
const adoptSQL = `WITH method AS (` + putMethodSQL + `), profile AS (
	INSERT INTO billing_profiles AS p (account_id, payment_method, billing_period, method_token, updated_at)
	VALUES ($2, $13, $14, $1, $12)
	ON CONFLICT (account_id) DO UPDATE SET payment_method = EXCLUDED.payment_method, method_token = EXCLUDED.method_token,
		updated_at = EXCLUDED.updated_at
	WHERE NOT (p.payment_method = $15 AND p.billing_period = $16) AND (p.method_token = '' OR $17) AND p.method_token <> $1
	RETURNING 1)
	INSERT INTO outbox (topic, key, payload, headers) SELECT $18::text, $19::bytea, $20::bytea, $21::jsonb FROM profile WHERE $18::text IS NOT NULL`

// adoptArgs answers adoptSQL's arguments.
func (s *Store) adoptArgs(ctx context.Context, a app.Adoption) ([]any, error) {
	pay := domain.PayCard
	if a.Method.Kind == domain.KindWallet {
		pay = domain.PayPal
	}
	def := domain.DefaultProfile(a.Customer)
	row := []any{nil, nil, nil, nil}
	if a.Event != nil {
		ev, err := a.Event(domain.BillingProfile{AccountID: a.Customer, Payment: pay, Token: a.Method.Token, UpdatedAt: a.Now}, &a.Method)
		if err != nil {
			return nil, err
		}
		if row, err = kafka.OutboxRow(ctx, s.prop, ev); err != nil {
			return nil, err
		}
	}
	args := appendPutMethodArgs(make([]any, 0, 21), a.Customer, a.Method, a.Postal, a.Country, a.Now)
	args = append(args, string(pay), string(def.Period), string(domain.PayCheck), string(domain.Quarterly), a.MakeDefault)
	return append(args, row...), nil
}

// queueAdopt queues an Adoption's statement on b.
func (s *Store) queueAdopt(ctx context.Context, b *pgx.Batch, a app.Adoption) error {
	args, err := s.adoptArgs(ctx, a)
	if err != nil {
		return err
	}
	b.Queue(adoptSQL, args...)
	return nil
}

func (s *Store) adopt(ctx context.Context, tx pgx.Tx, a app.Adoption) error {
	args, err := s.adoptArgs(ctx, a)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, adoptSQL, args...); err != nil {
		return fmt.Errorf("adopt method: %w", err)
	}
	return nil
}
