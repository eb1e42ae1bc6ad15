// Package adapters stores the payments service's state in its PostgreSQL database:
// charges with their idempotency keys, refunds, vaulted methods' display data, billing
// profiles and card-reader sessions, with events written to the outbox in the same
// transaction as the state change.
package adapters

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Migrations are the payments database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is the payments database.
type Store struct {
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
	// lastVelocitySweep is when this store last deleted ended velocity windows (Unix seconds).
	lastVelocitySweep atomic.Int64
}

var _ app.Store = (*Store)(nil)

// NewStore uses pool, already migrated; prop carries trace context into outbox rows.
func NewStore(pool *pgxpool.Pool, prop propagation.TextMapPropagator) *Store {
	return &Store{pool: pool, prop: prop}
}

const chargeCols = `id, idempotency_key, request_hash, status, amount, currency, captured_amount, refunded_amount,
	customer_id, authorize_only, method_token, method_kind, card_brand, card_last4, card_exp_month, card_exp_year,
	wallet_email, cardholder_name, failure_code, failure_message, processor_tx_id, reference, description, created_at, updated_at`

func scanCharge(row pgx.Row) (domain.Charge, error) {
	var c domain.Charge
	var status, kind, brand string
	err := row.Scan(&c.ID, &c.IdempotencyKey, &c.RequestHash, &status, &c.Amount, &c.Currency, &c.Captured, &c.Refunded,
		&c.CustomerID, &c.AuthorizeOnly, &c.Method.Token, &kind, &brand, &c.Method.Card.Last4, &c.Method.Card.ExpMonth,
		&c.Method.Card.ExpYear, &c.Method.Email, &c.Method.CardholderName, &c.FailureCode, &c.FailureMessage,
		&c.ProcessorTxID, &c.Reference, &c.Description, &c.CreatedAt, &c.UpdatedAt)
	c.Status, c.Method.Kind, c.Method.Card.Brand = domain.Status(status), domain.MethodKind(kind), domain.Brand(brand)
	return c, err
}

// recordFenceSQL records a fencing token ($2) as its key's ($1) newest unless a newer one
// is, and answers the newest: a caller whose token is older has lost its claim. The row
// stays locked to the end of the transaction, so a charge of the key and a fenced look-up
// of it take turns.
const recordFenceSQL = `INSERT INTO charge_fences (idempotency_key, fence) VALUES ($1, $2)
	ON CONFLICT (idempotency_key) DO UPDATE SET fence = greatest(charge_fences.fence, EXCLUDED.fence) RETURNING fence`

const chargeInsertCols = `INSERT INTO charges (id, idempotency_key, request_hash, status, amount, currency, customer_id,
	authorize_only, reference, description, created_at, updated_at)`

const insertChargeSQL = chargeInsertCols + `
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) ON CONFLICT (idempotency_key) DO NOTHING`

// insertPayerChargeSQL is insertChargeSQL of a stored method's charge: the row is only
// inserted when the Payer ($12-$16) may pay with the method, in the same statement, so the
// check costs the charge no round trip.
var insertPayerChargeSQL = chargeInsertCols + `
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11 WHERE ` + payerAllows(12) + `
	ON CONFLICT (idempotency_key) DO NOTHING`

// fencedInsertSQL is the insert of a fenced charge whose fencing token is parameter
// fence, the payer's check (payerAllows, or "true") with it: one statement records the
// token as the key's newest (recordFenceSQL: the key's fence row is locked first, so a
// fenced look-up of the key waits for this charge and this charge for it) and inserts the
// charge only when no newer token was recorded, answering the newest token and whether it
// inserted. The check rides the claim's own statement: a fenced charge costs payments no
// statement more than an unfenced one.
func fencedInsertSQL(fence int, payer string) string {
	f := "$" + strconv.Itoa(fence)
	return `WITH newest AS (
	INSERT INTO charge_fences (idempotency_key, fence) VALUES ($2, ` + f + `)
	ON CONFLICT (idempotency_key) DO UPDATE SET fence = greatest(charge_fences.fence, EXCLUDED.fence) RETURNING fence
), claimed AS (
	` + chargeInsertCols + `
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11 FROM newest WHERE newest.fence <= ` + f + ` AND ` + payer + `
	ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1
)
SELECT newest.fence, EXISTS (SELECT 1 FROM claimed) FROM newest`
}

var (
	// insertFencedChargeSQL is insertChargeSQL under a fence ($12).
	insertFencedChargeSQL = fencedInsertSQL(12, "true")
	// insertFencedPayerChargeSQL is insertPayerChargeSQL under a fence ($17).
	insertFencedPayerChargeSQL = fencedInsertSQL(17, payerAllows(12))
)

// Charge runs the idempotent charge protocol (app.Charges) in one transaction: insert c unless its key
// exists (a concurrent insert of the same key waits for the first transaction to end);
// otherwise lock the stored charge. A stored method's charge (payer not nil) is inserted
// only when the payer may pay with it; when it may not and the key has no charge, the
// answer is app.ErrRefused and nothing is written. A different request under the key is a Conflict. A
// charge past pending is answered as stored (replayed); a pending one (new, or stuck on an
// unknown processor outcome) is advanced by step and saved with its events and adoption.
//
// The processor is called with the row locked: duplicates wait instead of racing, which
// costs a connection for the length of the processor call.
//
// The transaction's BEGIN travels with the key's insert and its COMMIT with the writes of
// the outcome (pipelined): a new charge costs two round trips to payments' database. The
// card-testing rule v rides in both: its check with the insert (a new charge past the rule
// is an *app.LimitedError, nothing written), a decline's count with the commit.
func (s *Store) Charge(ctx context.Context, c domain.Charge, payer *app.Payer, v *app.Velocity, step app.PendingStep) (out domain.Charge, replayed bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return out, false, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			rollback(ctx, conn)
		}
	}()

	// What the first batch answers, in one variable its callbacks share.
	var claim struct {
		inserted, fenced bool
		limited          error
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	queueVelocityCheck(b, v, &claim.limited) // card testing: velocity.go
	// Room for the payer's arguments and the fence: the slice is built once.
	insert, args := insertChargeSQL, append(make([]any, 0, 17), c.ID, c.IdempotencyKey, c.RequestHash, string(c.Status), c.Amount, c.Currency,
		c.CustomerID, c.AuthorizeOnly, c.Reference, c.Description, c.CreatedAt)
	if payer != nil {
		insert, args = insertPayerChargeSQL, append(args, payerArgs(*payer)...)
	}
	if c.Fence == 0 {
		b.Queue(insert, args...).Exec(func(tag pgconn.CommandTag) error {
			claim.inserted = tag.RowsAffected() == 1
			return nil
		})
	} else {
		// A charge under a superseded claim inserts nothing and must not reach the processor.
		insert = insertFencedChargeSQL
		if payer != nil {
			insert = insertFencedPayerChargeSQL
		}
		b.Queue(insert, append(args, c.Fence)...).QueryRow(func(row pgx.Row) error {
			var newest int64
			if err := row.Scan(&newest, &claim.inserted); err != nil {
				return err
			}
			claim.fenced = newest > c.Fence
			return nil
		})
	}
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return out, false, fmt.Errorf("insert charge: %w", err)
	}
	if claim.fenced {
		return out, false, domain.ErrFenced // nothing was inserted; the rollback ends it
	}
	if claim.inserted && claim.limited != nil {
		return out, false, claim.limited // the rollback drops the new row
	}
	cur := c
	if !claim.inserted {
		cur, err = scanCharge(conn.QueryRow(ctx, `SELECT `+chargeCols+` FROM charges WHERE idempotency_key = $1 FOR UPDATE`, c.IdempotencyKey))
		if payer != nil && errors.Is(err, pgx.ErrNoRows) {
			return out, false, app.ErrRefused
		}
		if err != nil {
			return out, false, fmt.Errorf("lock charge by key: %w", err)
		}
		if string(cur.RequestHash) != string(c.RequestHash) {
			return out, false, domain.ErrKeyReused
		}
		if cur.Status != domain.Pending {
			return cur, true, nil // read only: the rollback ends it
		}
	}
	events, adopt, err := step(ctx, &cur)
	if err != nil {
		return out, false, err
	}
	b = &pgx.Batch{}
	queueSaveCharge(b, cur)
	if err := kafka.QueueEnqueue(ctx, b, s.prop, events...); err != nil {
		return out, false, err
	}
	if adopt != nil {
		if err := s.queueAdopt(ctx, b, *adopt); err != nil {
			return out, false, err
		}
	}
	queueVelocityDecline(b, v, cur) // card testing: velocity.go
	queueCommit(b)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return out, false, fmt.Errorf("save charge %s: %w", cur.ID, err)
	}
	committed = true
	return cur, false, nil
}

// queueCommit queues the COMMIT of a pipelined transaction. A failed statement before it
// makes PostgreSQL skip it (the batch answers that statement's error); a COMMIT of a
// transaction that failed anyway answers ROLLBACK, which is an error here as in pgx.Tx.
func queueCommit(b *pgx.Batch) {
	b.Queue(`COMMIT`).Exec(func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return pgx.ErrTxCommitRollback
		}
		return nil
	})
}

// rollback ends the transaction a pipelined protocol left open on conn. Should it fail
// (the connection lost, ctx over), Release closes the connection, which still has a
// transaction open, instead of pooling it, and the server rolls back.
func rollback(ctx context.Context, conn *pgxpool.Conn) {
	if conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = conn.Exec(ctx, `ROLLBACK`)
	}
}

const saveChargeSQL = `UPDATE charges SET status = $2, captured_amount = $3, refunded_amount = $4, method_token = $5,
	method_kind = $6, card_brand = $7, card_last4 = $8, card_exp_month = $9, card_exp_year = $10, wallet_email = $11,
	cardholder_name = $12, failure_code = $13, failure_message = $14, processor_tx_id = $15, updated_at = $16 WHERE id = $1`

func saveChargeArgs(c domain.Charge) []any {
	return []any{c.ID, string(c.Status), c.Captured, c.Refunded, c.Method.Token, string(c.Method.Kind), string(c.Method.Card.Brand),
		c.Method.Card.Last4, c.Method.Card.ExpMonth, c.Method.Card.ExpYear, c.Method.Email, c.Method.CardholderName,
		c.FailureCode, c.FailureMessage, c.ProcessorTxID, c.UpdatedAt}
}

func queueSaveCharge(b *pgx.Batch, c domain.Charge) {
	b.Queue(saveChargeSQL, saveChargeArgs(c)...)
}

func saveCharge(ctx context.Context, tx pgx.Tx, c domain.Charge) error {
	_, err := tx.Exec(ctx, saveChargeSQL, saveChargeArgs(c)...)
	if err != nil {
		return fmt.Errorf("save charge %s: %w", c.ID, err)
	}
	return nil
}

// GetChargeByKey answers the charge of an idempotency key. A fence is recorded first, in
// the same round trip but its own statement: its upsert waits for a charge of the key in
// flight (whose transaction holds the key's fence row), and the read after it, with a
// snapshot of its own, then sees that charge.
func (s *Store) GetChargeByKey(ctx context.Context, key string, fence int64) (domain.Charge, error) {
	if fence == 0 {
		c, err := scanCharge(s.pool.QueryRow(ctx, `SELECT `+chargeCols+` FROM charges WHERE idempotency_key = $1`, key))
		if errors.Is(err, pgx.ErrNoRows) {
			return c, errs.E(errs.NotFound, "charge not found")
		}
		return c, err
	}
	var c domain.Charge
	found := false
	b := &pgx.Batch{}
	b.Queue(recordFenceSQL, key, fence)
	b.Queue(`SELECT `+chargeCols+` FROM charges WHERE idempotency_key = $1`, key).QueryRow(func(row pgx.Row) error {
		var err error
		c, err = scanCharge(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return c, fmt.Errorf("fence and read charge by key: %w", err)
	}
	if !found {
		return c, errs.E(errs.NotFound, "charge not found")
	}
	return c, nil
}

// GetCharge answers a charge.
func (s *Store) GetCharge(ctx context.Context, id string) (domain.Charge, error) {
	c, err := scanCharge(s.pool.QueryRow(ctx, `SELECT `+chargeCols+` FROM charges WHERE id::text = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, errs.E(errs.NotFound, "charge not found")
	}
	return c, err
}

// UpdateCharge locks a charge and applies step (capture, void).
func (s *Store) UpdateCharge(ctx context.Context, id string, step app.ChargeStep) (domain.Charge, error) {
	var out domain.Charge
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		c, err := scanCharge(tx.QueryRow(ctx, `SELECT `+chargeCols+` FROM charges WHERE id::text = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.E(errs.NotFound, "charge not found")
		}
		if err != nil {
			return fmt.Errorf("lock charge: %w", err)
		}
		events, err := step(ctx, &c)
		if err != nil {
			return err
		}
		if err := saveCharge(ctx, tx, c); err != nil {
			return err
		}
		if err := kafka.Enqueue(ctx, tx, s.prop, events...); err != nil {
			return err
		}
		out = c
		return nil
	})
	return out, err
}

// Refund locks the charge; a refund already made under (charge, key) is answered as it
// was (replayed), otherwise step refunds and the refund is stored with its events.
func (s *Store) Refund(ctx context.Context, chargeID, key string, step app.RefundStep) (r domain.Refund, c domain.Charge, replayed bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		c, err = scanCharge(tx.QueryRow(ctx, `SELECT `+chargeCols+` FROM charges WHERE id::text = $1 FOR UPDATE`, chargeID))
		if errors.Is(err, pgx.ErrNoRows) {
			return errs.E(errs.NotFound, "charge not found")
		}
		if err != nil {
			return fmt.Errorf("lock charge: %w", err)
		}
		err = tx.QueryRow(ctx, `SELECT id, charge_id, idempotency_key, amount, reason, processor_id, created_at FROM refunds
			WHERE charge_id = $1 AND idempotency_key = $2`, c.ID, key).
			Scan(&r.ID, &r.ChargeID, &r.IdempotencyKey, &r.Amount, &r.Reason, &r.ProcessorID, &r.CreatedAt)
		if err == nil {
			replayed = true
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("find refund: %w", err)
		}
		var events []kafka.Event
		r, events, err = step(ctx, &c)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO refunds (id, charge_id, idempotency_key, amount, reason, processor_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.ID, c.ID, key, r.Amount, r.Reason, r.ProcessorID, r.CreatedAt); err != nil {
			return fmt.Errorf("insert refund: %w", err)
		}
		if err := saveCharge(ctx, tx, c); err != nil {
			return err
		}
		return kafka.Enqueue(ctx, tx, s.prop, events...)
	})
	return r, c, replayed, err
}

// CountCharges answers how many charges hold key (tests of the exactly-once rule).
func (s *Store) CountCharges(ctx context.Context, key string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM charges WHERE idempotency_key = $1`, key).Scan(&n)
	return n, err
}

// PutMethod stores (or refreshes) a vaulted method's display data for a customer.
func (s *Store) PutMethod(ctx context.Context, customer string, m domain.MethodSummary, postal, country string, now time.Time) error {
	return putMethod(ctx, s.pool, customer, m, postal, country, now)
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// putMethodSQL stores (or refreshes) a method's display data and owner: $1 token, $2 customer
// (a card the sales-mode reader vaulted for an e-mail moves to the account it paid for), $3 kind,
// $4 brand, $5 last4, $6 and $7 expiry, $8 wallet e-mail, $9 cardholder, $10 postal code,
// $11 country, $12 now.
const putMethodSQL = `INSERT INTO payment_methods (token, customer_id, kind, card_brand, card_last4, card_exp_month,
	card_exp_year, wallet_email, cardholder_name, postal_code, country, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
	ON CONFLICT (token) DO UPDATE SET customer_id = EXCLUDED.customer_id, card_exp_month = EXCLUDED.card_exp_month,
	card_exp_year = EXCLUDED.card_exp_year,
	cardholder_name = EXCLUDED.cardholder_name, postal_code = EXCLUDED.postal_code, country = EXCLUDED.country,
	updated_at = EXCLUDED.updated_at`

func putMethodArgs(customer string, m domain.MethodSummary, postal, country string, now time.Time) []any {
	return appendPutMethodArgs(make([]any, 0, 12), customer, m, postal, country, now)
}

// appendPutMethodArgs appends putMethodSQL's arguments to dst (a statement that has more
// builds its slice once).
func appendPutMethodArgs(dst []any, customer string, m domain.MethodSummary, postal, country string, now time.Time) []any {
	return append(dst, m.Token, customer, string(m.Kind), string(m.Card.Brand), m.Card.Last4, m.Card.ExpMonth, m.Card.ExpYear, m.Email,
		m.CardholderName, postal, country, now)
}

func putMethod(ctx context.Context, q execer, customer string, m domain.MethodSummary, postal, country string, now time.Time) error {
	_, err := q.Exec(ctx, putMethodSQL, putMethodArgs(customer, m, postal, country, now)...)
	if err != nil {
		return fmt.Errorf("store payment method: %w", err)
	}
	return nil
}

// Method answers a stored method by token.
func (s *Store) Method(ctx context.Context, token string) (domain.MethodSummary, error) {
	var m domain.MethodSummary
	var kind, brand string
	err := s.pool.QueryRow(ctx, `SELECT token, kind, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email,
		cardholder_name FROM payment_methods WHERE token = $1`, token).
		Scan(&m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, errs.E(errs.NotFound, "payment method not found")
	}
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	return m, err
}

// StoredMethod answers a stored method by token, with its owner.
func (s *Store) StoredMethod(ctx context.Context, token string) (app.StoredMethod, error) {
	var sm app.StoredMethod
	m := &sm.Method
	var kind, brand string
	err := s.pool.QueryRow(ctx, `SELECT customer_id, token, kind, card_brand, card_last4, card_exp_month, card_exp_year,
		wallet_email, cardholder_name, postal_code, country FROM payment_methods WHERE token = $1`, token).
		Scan(&sm.Owner, &m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName,
			&sm.Postal, &sm.Country)
	if errors.Is(err, pgx.ErrNoRows) {
		return sm, errs.E(errs.NotFound, "payment method not found")
	}
	if err != nil {
		return sm, fmt.Errorf("read payment method: %w", err)
	}
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	return sm, nil
}

// payerAllows is the SQL condition of an app.Payer, its arguments numbered from n: token,
// owners, reader, e-mail, since.
func payerAllows(n int) string {
	t, o, r, e, since := "$"+strconv.Itoa(n), "$"+strconv.Itoa(n+1), "$"+strconv.Itoa(n+2), "$"+strconv.Itoa(n+3), "$"+strconv.Itoa(n+4)
	return `(EXISTS (SELECT 1 FROM payment_methods WHERE token = ` + t + ` AND customer_id = ANY(` + o + `::text[]))
	OR (` + r + `::text <> '' AND EXISTS (SELECT 1 FROM reader_sessions WHERE method_token = ` + t + ` AND requested_by = ` + r + `
		AND lower(email) = lower(` + e + `) AND status = 'completed' AND created_at >= ` + since + `)))`
}

// payerArgs answers payerAllows' arguments of p.
func payerArgs(p app.Payer) []any {
	owners := p.Owners
	if owners == nil {
		owners = []string{}
	}
	return []any{p.Token, owners, p.ReaderBy, p.Email, p.Since}
}

// MayPay reports whether p may pay with its stored method.
func (s *Store) MayPay(ctx context.Context, p app.Payer) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT `+payerAllows(1), payerArgs(p)...).Scan(&ok); err != nil {
		return false, fmt.Errorf("check stored method: %w", err)
	}
	return ok, nil
}

// BillingProfile answers an account's profile, or the default one when none is stored.
func (s *Store) BillingProfile(ctx context.Context, account string) (domain.BillingProfile, error) {
	p := domain.BillingProfile{AccountID: account}
	var pay, period string
	err := s.pool.QueryRow(ctx, `SELECT payment_method, billing_period, method_token, updated_at FROM billing_profiles
		WHERE account_id = $1`, account).Scan(&pay, &period, &p.Token, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultProfile(account), nil
	}
	if err != nil {
		return p, fmt.Errorf("read billing profile: %w", err)
	}
	p.Payment, p.Period = domain.PaymentType(pay), domain.BillingPeriod(period)
	return p, nil
}

// PutBillingProfile stores a profile and, in the same transaction, events (the
// payment-method-updated of a subscriber's update).
func (s *Store) PutBillingProfile(ctx context.Context, p domain.BillingProfile, events ...kafka.Event) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := putProfile(ctx, tx, p); err != nil {
			return err
		}
		if len(events) == 0 {
			return nil
		}
		return kafka.Enqueue(ctx, tx, s.prop, events...)
	})
}

func putProfile(ctx context.Context, q execer, p domain.BillingProfile) error {
	_, err := q.Exec(ctx, `INSERT INTO billing_profiles (account_id, payment_method, billing_period, method_token, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id) DO UPDATE SET payment_method = EXCLUDED.payment_method,
		billing_period = EXCLUDED.billing_period, method_token = EXCLUDED.method_token, updated_at = EXCLUDED.updated_at`,
		p.AccountID, string(p.Payment), string(p.Period), p.Token, p.UpdatedAt)
	if err != nil {
		return fmt.Errorf("store billing profile: %w", err)
	}
	return nil
}

// StartReaderSession cancels the reader's waiting sessions and stores the new one: a
// reader collects one card at a time.
func (s *Store) StartReaderSession(ctx context.Context, r domain.ReaderSession) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE reader_sessions SET status = 'cancelled', message = $2 WHERE reader = $1 AND status = 'waiting'`,
			r.Reader, domain.MsgReaderSuperseded); err != nil {
			return fmt.Errorf("cancel waiting reader sessions: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO reader_sessions (context_id, reader, email, requested_by, status, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.ContextID, r.Reader, r.Email, r.RequestedBy, string(r.Status), r.CreatedAt, r.ExpiresAt)
		if err != nil {
			return fmt.Errorf("store reader session: %w", err)
		}
		return nil
	})
}

const readerCols = `context_id::text, reader, email, requested_by, status, method_token, cardholder_name, message, created_at, expires_at`

func scanReader(row pgx.Row) (domain.ReaderSession, error) {
	var r domain.ReaderSession
	var st string
	err := row.Scan(&r.ContextID, &r.Reader, &r.Email, &r.RequestedBy, &st, &r.Token, &r.CardholderName, &r.Message, &r.CreatedAt, &r.ExpiresAt)
	r.Status = domain.ReaderStatus(st)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, errs.E(errs.NotFound, "%s", domain.MsgNoReaderRequest)
	}
	return r, err
}

// ReaderSession answers a session by context id.
func (s *Store) ReaderSession(ctx context.Context, id string) (domain.ReaderSession, error) {
	return scanReader(s.pool.QueryRow(ctx, `SELECT `+readerCols+` FROM reader_sessions WHERE context_id::text = $1`, id))
}

// WaitingReaderSession answers the reader's newest waiting session.
func (s *Store) WaitingReaderSession(ctx context.Context, reader string, now time.Time) (domain.ReaderSession, error) {
	return scanReader(s.pool.QueryRow(ctx, `SELECT `+readerCols+` FROM reader_sessions
		WHERE reader = $1 AND status = 'waiting' AND expires_at > $2 ORDER BY created_at DESC LIMIT 1`, reader, now))
}

// FinishReaderSession records the outcome of a waiting session.
func (s *Store) FinishReaderSession(ctx context.Context, r domain.ReaderSession) error {
	tag, err := s.pool.Exec(ctx, `UPDATE reader_sessions SET status = $2, method_token = $3, cardholder_name = $4, message = $5
		WHERE context_id::text = $1 AND status = 'waiting'`, r.ContextID, string(r.Status), r.Token, r.CardholderName, r.Message)
	if err != nil {
		return fmt.Errorf("finish reader session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errs.E(errs.Precondition, "%s", domain.MsgReaderSuperseded)
	}
	return nil
}
