package adapters

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// active answers v when it is a rule to apply (nil: none).
func active(v *app.Velocity) *app.Velocity {
	if v == nil || v.Max <= 0 || len(v.Keys) == 0 {
		return nil
	}
	return v
}

// velocityCheckSQL answers the subjects ($1) that reached the limit ($2 declines) in their
// current window (started after $3), with the window's start.
const velocityCheckSQL = `SELECT key, window_start FROM card_velocity
	WHERE key = ANY($1::text[]) AND declines >= $2 AND window_start > $3`

// velocityRecordSQL counts one decline for each subject ($1, sorted: concurrent records
// lock their rows in one order), starting a new window at $2 where the last ended ($3).
const velocityRecordSQL = `INSERT INTO card_velocity AS v (key, declines, window_start)
	SELECT k, 1, $2 FROM unnest($1::text[]) AS k ORDER BY k
	ON CONFLICT (key) DO UPDATE SET
		declines = CASE WHEN v.window_start > $3 THEN v.declines + 1 ELSE 1 END,
		window_start = CASE WHEN v.window_start > $3 THEN v.window_start ELSE $2 END
	RETURNING key, declines, window_start`

func checkArgs(v *app.Velocity) []any {
	return []any{v.Keys, v.Limit(), v.Now.Add(-v.Window)}
}

func recordArgs(v *app.Velocity) []any {
	keys := slices.Clone(v.Keys)
	slices.Sort(keys)
	return []any{keys, v.Now, v.Now.Add(-v.Window)}
}

// limitedRows reads velocityCheckSQL's rows (or velocityRecordSQL's, keeping those at the
// limit) into the refusal, nil when none.
func limitedRows(v *app.Velocity, rows pgx.Rows, counted bool) (*app.LimitedError, error) {
	var l *app.LimitedError
	for rows.Next() {
		var key string
		var n int
		var start time.Time
		dest := []any{&key, &start}
		if counted {
			dest = []any{&key, &n, &start}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if counted && n < v.Limit() {
			continue
		}
		if l == nil {
			l = &app.LimitedError{Top: v.Top()}
		}
		l.Keys = append(l.Keys, key)
		if until := start.Add(v.Window); until.After(l.Until) {
			l.Until = until
		}
	}
	return l, rows.Err()
}

// genericPlans runs the rest of a transaction's prepared statements on their generic plans.
// PostgreSQL plans a prepared statement again at every call while that call's own (custom)
// plan is estimated cheaper than the generic one, and the velocity check's custom plan of
// an attempt with two or three subjects always is (the generic plan supposes ten): every
// charge planned it afresh, about 0.1 ms of its database's CPU, the only statement of an
// order that did. Its plan is one index probe per subject whatever they are, so the
// generic plan is the right one; the charge's other statements were generic already.
const genericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`

// queueVelocityCheck queues the check of the rule v (if any) into a charge's first batch,
// after its BEGIN: limited receives the refusal, nil when the attempt may go on.
func queueVelocityCheck(b *pgx.Batch, v *app.Velocity, limited *error) {
	if v = active(v); v == nil {
		return
	}
	b.Queue(genericPlans)
	b.Queue(velocityCheckSQL, checkArgs(v)...).Query(func(rows pgx.Rows) error {
		l, err := limitedRows(v, rows, false)
		if err != nil {
			return fmt.Errorf("check card velocity: %w", err)
		}
		if l != nil {
			*limited = l
		}
		return nil
	})
}

// queueVelocityDecline queues the count of a declined charge (c failed) into its commit;
// the rule keeps the subjects the decline brought to the limit (v.Reached).
func queueVelocityDecline(b *pgx.Batch, v *app.Velocity, c domain.Charge) {
	if v = active(v); v == nil || c.Status != domain.Failed {
		return
	}
	b.Queue(velocityRecordSQL, recordArgs(v)...).Query(func(rows pgx.Rows) error {
		l, err := limitedRows(v, rows, true)
		if err != nil {
			return fmt.Errorf("record card decline: %w", err)
		}
		v.Reached = l
		return nil
	})
}

// Velocity answers the refusal of v's attempt (a *LimitedError) or nil: for the attempts
// that are not a charge (verifications), one indexed read.
func (s *Store) Velocity(ctx context.Context, v *app.Velocity) error {
	if v = active(v); v == nil {
		return nil
	}
	rows, err := s.pool.Query(ctx, velocityCheckSQL, checkArgs(v)...)
	if err != nil {
		return fmt.Errorf("check card velocity: %w", err)
	}
	defer rows.Close()
	l, err := limitedRows(v, rows, false)
	if err != nil {
		return fmt.Errorf("check card velocity: %w", err)
	}
	if l != nil {
		return l
	}
	return nil
}

// RecordDecline counts a declined attempt that is not a charge (a verification), answers
// the subjects it brought to the limit (nil: none), and at most once a minute per store
// deletes the rows of windows that ended.
func (s *Store) RecordDecline(ctx context.Context, v *app.Velocity) (*app.LimitedError, error) {
	if v = active(v); v == nil {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, velocityRecordSQL, recordArgs(v)...)
	if err != nil {
		return nil, fmt.Errorf("record card decline: %w", err)
	}
	l, err := limitedRows(v, rows, true)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("record card decline: %w", err)
	}
	s.SweepVelocity(ctx, v)
	return l, nil
}

// SweepVelocity deletes the rows of ended windows, at most once a minute per store (best
// effort: a row left over only costs space; a new decline restarts its window).
func (s *Store) SweepVelocity(ctx context.Context, v *app.Velocity) {
	last, now := s.lastVelocitySweep.Load(), v.Now.Unix()
	if now-last < 60 || !s.lastVelocitySweep.CompareAndSwap(last, now) {
		return
	}
	_, _ = s.pool.Exec(ctx, `DELETE FROM card_velocity WHERE window_start < $1`, v.Now.Add(-v.Window))
}
