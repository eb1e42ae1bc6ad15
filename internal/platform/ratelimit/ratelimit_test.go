package ratelimit

import (
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

func TestBucketPerKeyRefusesWithTheWait(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	l := New(Rule{Every: 10 * time.Second, Burst: 3}, 100, func() time.Time { return now })
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("call %d within the burst refused", i+1)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > 10*time.Second {
		t.Fatalf("call past the burst = %v, wait %s; want refused with a wait of at most 10s", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Error("another key is refused: keys must not share a bucket")
	}
	now = now.Add(wait)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("refused after waiting the time it said")
	}
	if err := Refusal(wait); errs.CodeOf(err) != errs.Exhausted || errs.RetryAfterOf(err) != wait {
		t.Errorf("Refusal = %v", err)
	}
}
