package app

import (
	"context"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/third_party/argon2"
)

// Password hashing takes one of the pool's work areas: with every area taken, a login
// waits at most the pool's Wait and is then told to retry (429 with a wait), instead of
// adding another 19 MiB argon2id computation to the burst.
func TestPasswordHashingIsCapped(t *testing.T) {
	t.Parallel()
	h, err := domain.NewHasher(domain.Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := h.Hash("pw")
	s := New(nil, h, Policies{Hashing: HashPoolConfig{Size: 2, Wait: 10 * time.Millisecond}}, time.Now, nil)
	ctx := context.Background()
	_, r1, err := s.hashes.Acquire(ctx, "192.0.2.1", false)
	if err != nil {
		t.Fatal(err)
	}
	_, r2, err := s.hashes.Acquire(ctx, "192.0.2.2", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.verify(ctx, "pw", hash); errs.CodeOf(err) != errs.Exhausted || errs.RetryAfterOf(err) <= 0 {
		t.Fatalf("verify with every area busy = %v; want resource_exhausted with a wait", err)
	}
	r1()
	ok, err := s.verify(ctx, "pw", hash)
	if err != nil || !ok {
		t.Fatalf("verify with a free area = %v, %v", ok, err)
	}
	if got := s.HashSlotsInUse(); got != 1 {
		t.Errorf("areas in use after verify = %d, want 1 (the area is given back)", got)
	}
	r2()
}

// The pool serves known devices first and addresses in turn: with a flood address's five
// logins queued and a second address's behind them, a known device takes the area kept
// for known devices at once, and the second address is served at the flood's next turn,
// not after its queue. The other lane never takes the reserved area.
func TestHashPoolServesKnownDevicesFirstAndAddressesInTurn(t *testing.T) {
	t.Parallel()
	p := NewHashPool(HashPoolConfig{Size: 2, Reserved: 1, PerAddress: 1, Wait: time.Hour}, func() *argon2.Memory { return argon2.NewMemory(8) })
	ctx := context.Background()
	_, hold, err := p.Acquire(ctx, "flood", false)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 8)
	start := func(addr string, known bool) {
		go func() {
			_, release, err := p.Acquire(ctx, addr, known)
			if err != nil {
				order <- "error " + err.Error()
				return
			}
			order <- addr
			release()
		}()
	}
	for range 5 {
		start("flood", false)
	}
	for p.Waiting() < 5 {
		time.Sleep(time.Millisecond)
	}
	start("other", false)
	for p.Waiting() < 6 {
		time.Sleep(time.Millisecond)
	}
	if got := p.InUse(); got != 1 {
		t.Fatalf("areas in use with one free but reserved = %d, want 1", got)
	}
	start("device", true)
	if got := <-order; got != "device" {
		t.Fatalf("first served %q, want the known device (it takes the reserved area)", got)
	}
	hold()
	var served []string
	for range 6 {
		served = append(served, <-order)
	}
	if served[0] != "other" && served[1] != "other" {
		t.Errorf("served after the known device: %v, want the other address within the flood's next turn", served)
	}
}
