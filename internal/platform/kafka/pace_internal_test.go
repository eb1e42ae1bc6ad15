package kafka

import (
	"testing"
	"time"
)

// Issue 44: at a steady rate the spacing settles where a round carries fill items; it
// never leaves [least, most]; and it follows the traffic both ways within a few rounds.
func TestPaceSpacesRoundsToFillThemAsTrafficFalls(t *testing.T) {
	t.Parallel()
	p := &pace{least: 200 * time.Millisecond, most: time.Second, fill: 20}
	t0 := time.Unix(1_000_000, 0)
	if s := p.next(t0, 3); s != p.least {
		t.Fatalf("first round: spacing %v, want the least (%v): nothing is known of the traffic yet", s, p.least)
	}
	// Rounds that take what came meanwhile at rate items/s, each after the spacing answered.
	run := func(at time.Time, rate float64, rounds int) (time.Time, time.Duration) {
		s := p.least
		for range rounds {
			at = at.Add(s)
			s = p.next(at, int(rate*s.Seconds()+0.5))
		}
		return at, s
	}
	at, s := run(t0, 40, 8) // 40 events a second: 20 in 500 ms
	if s < 450*time.Millisecond || s > 550*time.Millisecond {
		t.Errorf("at 40 events/s the spacing settled at %v, want about 500 ms (20 a round)", s)
	}
	at, s = run(at, 400, 8) // heavy traffic: rounds fill in 50 ms, but never closer than least
	if s != p.least {
		t.Errorf("at 400 events/s the spacing is %v, want the least, %v", s, p.least)
	}
	at, s = run(at, 5, 8) // 5 events a second: 20 would take 4 s, held to most
	if s != p.most {
		t.Errorf("at 5 events/s the spacing is %v, want the most, %v", s, p.most)
	}
	// After a quiet minute a round of one event: the rate is near nothing, so the events
	// that follow it within `most` wait for the next round (the first one was not held:
	// the caller starts a round at once when the previous began longer than a spacing ago).
	if s = p.next(at.Add(time.Minute), 1); s != p.most {
		t.Errorf("after a quiet minute the spacing is %v, want the most, %v", s, p.most)
	}
	// Rounds that found nothing (a relay's periodic look) bring the rate down too.
	q := &pace{least: 0, most: 500 * time.Millisecond, fill: 20}
	q.next(t0, 0)
	if s := q.next(t0.Add(time.Second), 0); s != q.most {
		t.Errorf("empty rounds: spacing %v, want the most, %v", s, q.most)
	}
	// A clock that did not move between two rounds changes nothing.
	before := *q
	if s := q.next(q.last, 7); s != q.least || q.rate != before.rate {
		t.Errorf("a round at the same instant: spacing %v (want %v), rate %v (was %v)", s, q.least, q.rate, before.rate)
	}
}
