package app

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// Issue 44: an idle poll waits Idle after a claim that found nothing (at 1 s the claim, the
// service's costliest statement, ran every second on an idle store), and is woken at once
// when this process itself makes mails due: new mails its senders had no room for, once
// their transaction committed.
func TestIdlePollWaitsForWhatThisProcessMakesDue(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t, 0)
	clock := newTimers()
	var mu sync.Mutex
	var waits []time.Duration
	s.after = func(d time.Duration) <-chan time.Time {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return clock.after(d)
	}
	counts := dbtest.Counter(t, pool)
	r := newRelay()
	p := SenderPolicy{Interval: time.Second, Idle: time.Minute, Batch: 2, Handoff: 2}
	stop := runSenders(t, s, r, p, 1)
	defer stop()
	clock.await(t, 1)
	clock.fire()
	clock.await(t, 1) // the claim found nothing
	mu.Lock()
	got := slices.Clone(waits)
	mu.Unlock()
	if want := []time.Duration{p.Interval, p.Idle}; !slices.Equal(got, want) {
		t.Fatalf("the poll waited %v, want %v: the interval, then after an empty claim the idle wait", got, want)
	}

	before := counts()
	committed := queue(t, s, pool, 0, 3) // more than the handoff holds: written due, for the poll
	if d := counts().Minus(before); d.Statements() != 3 {
		t.Fatalf("%+v before the commit: want the transaction's 3 statements, no claim", d)
	}
	committed()
	// No timer fired: the commit woke the poll, whose claims (a full batch, then the rest)
	// hand the three mails to the sender.
	sent := r.await(t, 3)
	slices.Sort(sent)
	if want := welcomes(0, 3); !slices.Equal(sent, want) {
		t.Errorf("sent %v, want %v", sent, want)
	}
}

// A retry this process scheduled cuts the idle wait short: the poll runs once it is due
// (and the database's clock has passed it), and forgets it then.
func TestIdlePollWakesForAScheduledRetry(t *testing.T) {
	t.Parallel()
	h := &handoff{}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	h.dueAt(now.Add(3 * time.Second))
	h.dueAt(now.Add(time.Hour))
	if d := h.wait(now, 10*time.Second); d != 3*time.Second+retryMargin {
		t.Errorf("wait with a retry due in 3 s: %v", d)
	}
	if d := h.wait(now.Add(4*time.Second), 10*time.Second); d != 10*time.Second {
		t.Errorf("wait once the retry was due: %v, want the idle wait (the retry forgotten, the other an hour off)", d)
	}
}
