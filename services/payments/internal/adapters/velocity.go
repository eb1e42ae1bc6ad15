package adapters

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Velocity is the card-testing rule applied to one card attempt (a charge, a verification,
// a tokenisation): the attempt is refused while any of its subjects (Keys: the client's
// address, its session, the account, the card's fingerprint, the e-mail) has Max declines
// or more in the current window, and a decline counts once for each subject. Keys may grow
// while the attempt runs (the processor names the declined card's fingerprint).
type Velocity struct {
	Keys   []string
	Max    int
	Window time.Duration
	Now    time.Time
	// reached: the subjects a charge's decline brought to the limit (ReachedLimit).
	reached *LimitedError
}

// Add adds subjects to the attempt (empty ones are skipped).
func (v *Velocity) Add(keys ...string) {
	for _, k := range keys {
		if k != "" && !slices.Contains(v.Keys, k) {
			v.Keys = append(v.Keys, k)
		}
	}
}

// LimitedError refuses an attempt of a subject past its declines until Until. Keys are
// the attempt's subjects that are past the rule.
type LimitedError struct {
	Until time.Time
	Keys  []string
}

func (e *LimitedError) Error() string {
	return "card attempts limited until " + e.Until.Format(time.RFC3339)
}

// Limits receives the subjects found past the rule (a check that refused, a decline that
// reached the limit), for a cache of refusals that costs no statement (the tokenisation's).
type Limits func(keys []string, until time.Time)

type velocityKey struct{}

// WithVelocity answers ctx carrying the rule of the card attempt it runs. Charge reads it
// from there (not a parameter) so the rule rides the charge's own statements without
// changing the charge protocol's signature.
func WithVelocity(ctx context.Context, v *Velocity) context.Context {
	return context.WithValue(ctx, velocityKey{}, v)
}

func velocityFrom(ctx context.Context) *Velocity {
	v, _ := ctx.Value(velocityKey{}).(*Velocity)
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

func (v *Velocity) checkArgs() []any {
	return []any{v.Keys, v.Max, v.Now.Add(-v.Window)}
}

func (v *Velocity) recordArgs() []any {
	keys := slices.Clone(v.Keys)
	slices.Sort(keys)
	return []any{keys, v.Now, v.Now.Add(-v.Window)}
}

// limitedRows reads velocityCheckSQL's rows (or velocityRecordSQL's, keeping those at the
// limit) into the refusal, nil when none.
func (v *Velocity) limitedRows(rows pgx.Rows, counted bool) (*LimitedError, error) {
	var l *LimitedError
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
		if counted && n < v.Max {
			continue
		}
		if l == nil {
			l = &LimitedError{}
		}
		l.Keys = append(l.Keys, key)
		if until := start.Add(v.Window); until.After(l.Until) {
			l.Until = until
		}
	}
	return l, rows.Err()
}

// queueVelocityCheck queues the check of ctx's rule (if any) into a charge's first batch:
// limited receives the refusal, nil when the attempt may go on.
func queueVelocityCheck(ctx context.Context, b *pgx.Batch, limited *error) {
	v := velocityFrom(ctx)
	if v == nil {
		return
	}
	b.Queue(velocityCheckSQL, v.checkArgs()...).Query(func(rows pgx.Rows) error {
		l, err := v.limitedRows(rows, false)
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
// the rule keeps the subjects the decline brought to the limit (ReachedLimit).
func queueVelocityDecline(ctx context.Context, b *pgx.Batch, c domain.Charge) {
	v := velocityFrom(ctx)
	if v == nil || c.Status != domain.Failed {
		return
	}
	v.reached = &LimitedError{}
	reached := v.reached
	b.Queue(velocityRecordSQL, v.recordArgs()...).Query(func(rows pgx.Rows) error {
		l, err := v.limitedRows(rows, true)
		if err != nil {
			return fmt.Errorf("record card decline: %w", err)
		}
		if l != nil {
			*reached = *l
		}
		return nil
	})
}

// Velocity answers the refusal of v's attempt (a *LimitedError) or nil: for the attempts
// that are not a charge (verifications), one indexed read.
func (s *Store) Velocity(ctx context.Context, v *Velocity) error {
	if v == nil || v.Max <= 0 || len(v.Keys) == 0 {
		return nil
	}
	rows, err := s.pool.Query(ctx, velocityCheckSQL, v.checkArgs()...)
	if err != nil {
		return fmt.Errorf("check card velocity: %w", err)
	}
	defer rows.Close()
	l, err := v.limitedRows(rows, false)
	if err != nil {
		return fmt.Errorf("check card velocity: %w", err)
	}
	if l != nil {
		return l
	}
	return nil
}

// lastVelocitySweep is when this process last deleted ended windows (Unix seconds).
var lastVelocitySweep atomic.Int64

// RecordDecline counts a declined attempt that is not a charge (a verification), answers
// the subjects it brought to the limit (nil: none), and at most once a minute per process
// deletes the rows of windows that ended.
func (s *Store) RecordDecline(ctx context.Context, v *Velocity) (*LimitedError, error) {
	if v == nil || v.Max <= 0 || len(v.Keys) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, velocityRecordSQL, v.recordArgs()...)
	if err != nil {
		return nil, fmt.Errorf("record card decline: %w", err)
	}
	l, err := v.limitedRows(rows, true)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("record card decline: %w", err)
	}
	s.SweepVelocity(ctx, v)
	return l, nil
}

// ReachedLimit answers the subjects a charge's decline brought to the limit (the charge
// recorded it with its commit), read from ctx's rule; nil when none.
func ReachedLimit(ctx context.Context) *LimitedError {
	if v := velocityFrom(ctx); v != nil && v.reached != nil && len(v.reached.Keys) > 0 {
		return v.reached
	}
	return nil
}

// SweepVelocity deletes the rows of ended windows, at most once a minute per process (best
// effort: a row left over only costs space; a new decline restarts its window).
func (s *Store) SweepVelocity(ctx context.Context, v *Velocity) {
	last, now := lastVelocitySweep.Load(), v.Now.Unix()
	if now-last < 60 || !lastVelocitySweep.CompareAndSwap(last, now) {
		return
	}
	_, _ = s.pool.Exec(ctx, `DELETE FROM card_velocity WHERE window_start < $1`, v.Now.Add(-v.Window))
}
