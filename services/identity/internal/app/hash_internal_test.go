package app

import (
	"context"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Password hashing takes a slot of a per-process semaphore: with every slot taken, a
// login waits at most HashWait and is then told to retry (429 with a wait), instead of
// adding another 19 MiB argon2id computation to the burst.
func TestPasswordHashingIsCapped(t *testing.T) {
	h, err := domain.NewHasher(domain.Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := h.Hash("pw")
	s := New(nil, h, Policies{HashConcurrency: 2, HashWait: 10 * time.Millisecond}, time.Now, nil)
	s.hashSlots <- struct{}{}
	s.hashSlots <- struct{}{} // every slot busy
	if _, err := s.verify(context.Background(), "pw", hash); errs.CodeOf(err) != errs.Exhausted || errs.RetryAfterOf(err) <= 0 {
		t.Fatalf("verify with every slot busy = %v; want resource_exhausted with a wait", err)
	}
	<-s.hashSlots
	ok, err := s.verify(context.Background(), "pw", hash)
	if err != nil || !ok {
		t.Fatalf("verify with a free slot = %v, %v", ok, err)
	}
	if got := s.HashSlotsInUse(); got != 1 {
		t.Errorf("slots in use after verify = %d, want 1 (the slot is given back)", got)
	}
}
