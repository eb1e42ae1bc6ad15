package app

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// relay is a Mailer for running senders: it reports each mail it is given on got and,
// while hold is open, waits for it to close.
type relay struct {
	got  chan string
	hold chan struct{}
}

func newRelay() *relay {
	r := &relay{got: make(chan string, 100), hold: make(chan struct{})}
	close(r.hold)
	return r
}

func (r *relay) Send(_ context.Context, m domain.Message) error {
	r.got <- m.ID
	<-r.hold
	return nil
}

// await answers the next n mails the relay is given.
func (r *relay) await(t *testing.T, n int) []string {
	t.Helper()
	var ids []string
	for len(ids) < n {
		select {
		case id := <-r.got:
			ids = append(ids, id)
		case <-time.After(30 * time.Second):
			t.Fatalf("relay given %v, want %d mails", ids, n)
		}
	}
	return ids
}

// startSenders runs s's senders until cancel; done closes once they ended.
func startSenders(t *testing.T, s *Service, m Mailer, p SenderPolicy, n int) (cancel func(), done <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { defer close(ended); s.RunSenders(ctx, m, p, n) }()
	until(t, "RunSenders began", func() bool { return s.handoff.Load() != nil })
	return cancel, ended
}

// runSenders runs s's senders until the returned stop, which waits for them to end.
func runSenders(t *testing.T, s *Service, m Mailer, p SenderPolicy, n int) (stop func()) {
	t.Helper()
	cancel, done := startSenders(t, s, m, p, n)
	return func() { cancel(); <-done }
}

// until yields until cond holds: for a state the goroutines under test reach without
// telling anyone. It fails t rather than hang should they never reach it.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("not reached in 30 s: %s", what)
		}
	}
}

// commit queues the welcomes of events ev-<from> to ev-<to-1> in one transaction, as the
// consumer does: what Queue registers runs once the transaction committed, unless the
// process died in between.
func commit(t *testing.T, s *Service, pool *pgxpool.Pool, from, to int, died bool) {
	t.Helper()
	committed := queue(t, s, pool, from, to)
	if !died {
		committed()
	}
}

// queue queues as commit does and answers what the consumer runs once the transaction
// committed.
func queue(t *testing.T, s *Service, pool *pgxpool.Pool, from, to int) (committed func()) {
	t.Helper()
	ctx := context.Background()
	var b Mails
	for i := from; i < to; i++ {
		if err := s.Welcome(ctx, &b, fmt.Sprintf("ev-%d", i), domain.Welcome{Email: fmt.Sprintf("u%d@example.com", i), AccountKind: "individual"}); err != nil {
			t.Fatal(err)
		}
	}
	var after []func()
	register := func(_ context.Context, f func()) bool { after = append(after, f); return true }
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return s.Queue(ctx, adapters.NewStore(pool).In(tx), &b, register) }); err != nil {
		t.Fatal(err)
	}
	return func() {
		for _, f := range after {
			f()
		}
	}
}

func welcomes(from, to int) []string {
	var ids []string
	for i := from; i < to; i++ {
		ids = append(ids, fmt.Sprintf("ev-%d.welcome", i))
	}
	return ids
}

// A mail queued by this process goes straight to its senders: written claimed, sent
// without a claim statement (the poll's, the costliest of the service) nor waiting for a
// poll, and recorded sent in one statement with its one attempt.
func TestHandedOffMailIsSentWithoutAClaim(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 0)
	counts := dbtest.Counter(t, pool)
	r := newRelay()
	stop := runSenders(t, s, r, SenderPolicy{Interval: time.Hour}, 2) // no poll in this test
	before := counts()
	commit(t, s, pool, 0, 3, false)
	got := r.await(t, 3)
	stop() // waits for the record of the sends
	// The queue's transaction (BEGIN, INSERT, COMMIT), one UPDATE marking the batch's mails
	// handed to the relay (Handing: not sent again should its record be lost) and one
	// recording the sends (a commit's mails go to one sender); a claim would be one more
	// statement and transaction.
	if d := counts().Minus(before); d.Statements() != 4+1 || d.Transactions != 2+1 {
		t.Errorf("%+v: want the queue's transaction and the record of the sends, no claim", d)
	}
	if !slices.Equal(got, welcomes(0, 3)) { // in the order of their events
		t.Errorf("sent %v", got)
	}
	allSentAt(t, pool, 1)
}

// The handoff queue is bounded and the consumer never waits on it: mails it has no room for
// are written due, and those that found it full once committed (another batch filled it
// meanwhile) go back to the queue at once, due; the poll sends both. None is lost, none
// sent twice.
func TestHandoffOverflowGoesToThePoll(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 0)
	r := newRelay()
	r.hold = make(chan struct{}) // the first send waits
	// The poll runs only when woken (the put-back and the mails written due poke it): one on
	// a timer could claim between its check for room and the put-back, and take the mails
	// this test looks for in the queue.
	stop := runSenders(t, s, r, SenderPolicy{Interval: time.Hour, Handoff: 2}, 1)
	defer stop()
	commit(t, s, pool, 0, 1, false)
	r.await(t, 1) // the only sender is busy with ev-0 now

	first, second := queue(t, s, pool, 1, 3), queue(t, s, pool, 3, 5) // each fits, not both
	first()
	second()
	commit(t, s, pool, 5, 10, false) // more than fits
	if n := testutil.ToFloat64(s.released); n != 2 {
		t.Errorf("%v mails put back, want the 2 of the second batch", n)
	}
	var due []string
	for id, row := range rows(t, pool) {
		if row.back() {
			due = append(due, id)
		}
	}
	slices.Sort(due)
	if want := append(welcomes(3, 5), welcomes(5, 10)...); !slices.Equal(due, want) {
		t.Errorf("due for the poll: %v, want %v", due, want)
	}

	close(r.hold)
	got := r.await(t, 9)
	stop()
	select {
	case id := <-r.got:
		t.Errorf("%s sent again", id)
	default:
	}
	slices.Sort(got)
	if want := welcomes(1, 10); !slices.Equal(got, want) {
		t.Errorf("sent %v after ev-0, want %v once each", got, want)
	}
	allSentAt(t, pool, 1)
}

// A process that dies between queueing mails for its senders and handing them over
// leaves them claimed: no other sender takes them until their lease runs out, and then
// one does (the dead claim counted as an attempt, as for a sender that died mid-send).
func TestMailsOfADeadProcessGoOnceTheirLeaseRanOut(t *testing.T) {
	t.Parallel()
	dead, pool, _ := newService(t, 0)
	// Built before the commit: its database's creation must not eat into the 3 s lease
	// (at a load of 40 it outlasted it).
	other, _, clock := newService(t, 0)
	other.store = dead.store // another replica, on the same database
	idle := newRelay()
	p := SenderPolicy{Interval: time.Hour, Window: time.Second, Lease: 2 * time.Second}
	stop := runSenders(t, dead, idle, p, 1)
	commit(t, dead, pool, 0, 2, true)
	stop()

	m := &mailer{clock: clock}
	if n, err := other.SendBatch(context.Background(), m, p); err != nil || n != 0 {
		t.Fatalf("SendBatch within the lease = %d, %v; want none claimed", n, err)
	}
	// The lease runs out: the database's clock moves on by it.
	if _, err := pool.Exec(context.Background(), `UPDATE messages SET next_attempt_at = next_attempt_at - interval '3 seconds', lease_until = lease_until - interval '3 seconds'`); err != nil {
		t.Fatal(err)
	}
	if n, err := other.SendBatch(context.Background(), m, p); err != nil || n != 2 {
		t.Fatalf("SendBatch after the lease = %d, %v; want both", n, err)
	}
	if !slices.Equal(m.sent, welcomes(0, 2)) || len(idle.got) != 0 {
		t.Errorf("sent %v, the dead process's senders %d; want both by the other", m.sent, len(idle.got))
	}
	allSentAt(t, pool, 2)
}

// Senders stopping with handed-over mails put them back in the queue, due at once, for the
// other replicas (rather than leave them to their lease); after that the consumer's
// mails are written due.
func TestStoppingSendersPutBackWhatTheyHold(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 0)
	r := newRelay()
	r.hold = make(chan struct{})
	cancel, done := startSenders(t, s, r, SenderPolicy{Interval: time.Hour}, 1)
	commit(t, s, pool, 0, 1, false)
	r.await(t, 1)
	commit(t, s, pool, 1, 4, false) // waiting in the handoff queue
	cancel()                        // shutdown begins while ev-0 is being sent
	close(r.hold)
	<-done
	commit(t, s, pool, 4, 5, false) // no sender runs any more
	if len(r.got) != 0 {
		t.Errorf("%d more mails sent after shutdown began", len(r.got))
	}
	for id, row := range rows(t, pool) {
		switch {
		case id == "ev-0.welcome":
			if !row.sent {
				t.Errorf("%s: %+v, want recorded sent", id, row)
			}
		case !row.back():
			t.Errorf("%s: %+v, want back in the queue, due", id, row)
		}
	}
}

// timers stand in for the poll's timer (Service.after): the interval passes when fire
// says so.
type timers struct {
	mu    sync.Mutex
	set   []chan time.Time
	armed chan struct{} // a token per timer set
}

func newTimers() *timers { return &timers{armed: make(chan struct{}, 1000)} }

func (f *timers) after(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	f.mu.Lock()
	f.set = append(f.set, c)
	f.mu.Unlock()
	f.armed <- struct{}{}
	return c
}

// await waits until n more timers were set: a poll waits for its interval.
func (f *timers) await(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-f.armed:
		case <-time.After(30 * time.Second):
			t.Fatal("no poll waits for its interval")
		}
	}
}

// fire ends the interval of every timer set, and answers how many there were.
func (f *timers) fire() int {
	f.mu.Lock()
	set := f.set
	f.set = nil
	f.mu.Unlock()
	for _, c := range set {
		c <- time.Now()
	}
	return len(set)
}

// The poll's claim, the service's costliest statement whether it finds mails or not, runs
// once per interval in a process however many senders it runs: one poller claims for
// them all.
func TestOnePollPerIntervalWhateverTheSenders(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 0)
	clock := newTimers()
	s.after = clock.after
	counts := dbtest.Counter(t, pool)
	stop := runSenders(t, s, newRelay(), SenderPolicy{}, 8)
	defer stop()
	clock.await(t, 1)
	before := counts()
	const intervals = 3
	for range intervals {
		if n := clock.fire(); n != 1 {
			t.Fatalf("%d polls waited for the interval, want one", n)
		}
		clock.await(t, 1) // the poll ended, and waits for the next interval
	}
	if d := counts().Minus(before); d.Statements() != intervals {
		t.Errorf("%+v in %d intervals: want one claim each", d, intervals)
	}
}

// A backlog of due mails larger than a batch is claimed batch after batch without waiting
// for the next interval, and the batches go to every sender at once; each mail is sent
// once, each batch claimed and recorded in a statement.
func TestBacklogIsSentByEverySender(t *testing.T) {
	t.Parallel()
	const mails, batch, senders = 100, 10, 4
	s, pool, _ := newService(t, mails) // due, for the poll
	clock := newTimers()
	s.after = clock.after
	counts := dbtest.Counter(t, pool)
	r := newRelay()
	r.hold = make(chan struct{})
	stop := runSenders(t, s, r, SenderPolicy{Batch: batch}, senders)
	defer stop()
	clock.await(t, 1)
	before := counts()
	clock.fire() // one interval
	// Each sender sends its batch's mails one after another: as many sends at once as
	// senders are busy.
	got := r.await(t, senders)
	close(r.hold)
	got = append(got, r.await(t, mails-senders)...)
	clock.await(t, 1) // the poll found none due and waits for the next interval
	stop()            // waits for the record of the sends
	select {
	case id := <-r.got:
		t.Errorf("%s sent again", id)
	default:
	}
	// A claim, a mark before the sends (Handing) and a record per batch, and the claim that
	// found none due.
	if d := counts().Minus(before); d.Statements() != 3*mails/batch+1 {
		t.Errorf("%+v: want %d claims and %d records", d, mails/batch+1, mails/batch)
	}
	want := welcomes(0, mails)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v once each", got, want)
	}
	allSentAt(t, pool, 1)
}

// Senders stopping with a batch the poll handed them put it back in the queue too, due at
// once and with its attempt given back; such mails were due already, so they are not
// counted as new mails the senders had no room for.
func TestStoppingSendersPutBackWhatThePollHandedThem(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 4)
	clock := newTimers()
	s.after = clock.after
	r := newRelay()
	r.hold = make(chan struct{})
	cancel, done := startSenders(t, s, r, SenderPolicy{Batch: 2}, 1)
	clock.await(t, 1)
	clock.fire()
	r.await(t, 1) // the only sender is busy with the first batch
	h := s.handoff.Load()
	until(t, "the poll claimed the second batch and queued it", func() bool { return h.waiting.Load() == 2 })
	cancel()
	close(r.hold)
	<-done
	if sent, back := sentAndBack(t, pool); sent != 1 || back != 3 {
		t.Errorf("%d sent, %d back in the queue; want the one being sent, and the rest back", sent, back)
	}
	if n := testutil.ToFloat64(s.released); n != 0 {
		t.Errorf("%v mails counted released, want none", n)
	}
}

// allSentAt fails t unless every mail in pool is recorded sent, at attempt n.
func allSentAt(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	for id, row := range rows(t, pool) {
		if !row.sent || row.attempts != n {
			t.Errorf("%s: %+v, want sent at attempt %d", id, row, n)
		}
	}
}
