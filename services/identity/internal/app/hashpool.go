package app

import (
	"context"
	"sync"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/third_party/argon2"
)

// HashPool is the password-hashing budget of a process: a fixed number of argon2id work
// areas (the memory budget divided by the hash's memory parameter), each allocated once on
// first use and reused, so hashing never grows the process beyond the budget however many
// logins arrive. Waiting costs no memory: logins queue for an area, fairly.
//
// Fair means a flood cannot take the pool. Waiters queue per client address and the
// addresses are served in turn (round robin), each holding at most PerAddress areas at
// once, so one address's thousand attempts wait behind each other while a new address
// waits for at most one turn of the others. Logins from a known device (a signed device
// cookie of the account, OWASP's "device cookies") have a lane of their own, served
// first, with Reserved areas the other lane never takes: a distributed flood of guesses
// cannot delay the owners' own logins. A login that finds Queue waiters ahead, or waits
// past Wait, is told the service is busy (429 with Retry-After).
type HashPool struct {
	size, reserved, perAddr, queue int
	wait                           time.Duration
	newArea                        func() *argon2.Memory

	mu      sync.Mutex
	free    []*argon2.Memory // areas not in use; nil entries are not allocated yet
	holding map[string]int   // areas held per address
	lanes   [2]hashLane      // [0] other logins, [1] known devices
	waiting int
	cost    time.Duration // a verification's recent time, its wait included (EWMA)
}

// HashPoolConfig sizes a HashPool.
type HashPoolConfig struct {
	// Size is the number of work areas (at least 1).
	Size int
	// Reserved areas are kept for known devices (at most Size-1).
	Reserved int
	// PerAddress caps the areas one client address holds at once (0: no cap).
	PerAddress int
	// Queue caps the logins waiting (0: 1024).
	Queue int
	// Wait is the longest a login waits for an area (0: 30 s).
	Wait time.Duration
}

// hashLane is one class of waiters: a queue per address, the addresses in turn.
type hashLane struct {
	ring   []string
	queues map[string][]*hashWaiter
}

type hashWaiter struct {
	addr string
	got  chan *argon2.Memory
}

// errHashBusy answers a login the pool cannot serve in time.
func errHashBusy() error {
	return errs.Throttled(time.Second, "The service is busy. Please try again in a moment.")
}

// NewHashPool builds a pool of cfg.Size areas made by newArea.
func NewHashPool(cfg HashPoolConfig, newArea func() *argon2.Memory) *HashPool {
	cfg.Size = max(cfg.Size, 1)
	cfg.Reserved = min(max(cfg.Reserved, 0), cfg.Size-1)
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	if cfg.Wait <= 0 {
		cfg.Wait = 30 * time.Second
	}
	p := &HashPool{size: cfg.Size, reserved: cfg.Reserved, perAddr: cfg.PerAddress, queue: cfg.Queue, wait: cfg.Wait,
		newArea: newArea, free: make([]*argon2.Memory, cfg.Size), holding: map[string]int{}}
	for i := range p.lanes {
		p.lanes[i].queues = map[string][]*hashWaiter{}
	}
	return p
}

// Size answers how many areas the pool has.
func (p *HashPool) Size() int { return p.size }

// InUse answers how many areas are held now.
func (p *HashPool) InUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size - len(p.free)
}

// Waiting answers how many logins wait for an area.
func (p *HashPool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

// Cost answers how long a verification took lately, its wait for an area included: what
// a login for an unknown e-mail waits instead of hashing, so that it answers in the time
// a known one does without taking an area.
func (p *HashPool) Cost() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cost
}

// Acquire takes a work area for a hash from addr (known: from a known device); call
// release with it when done.
func (p *HashPool) Acquire(ctx context.Context, addr string, known bool) (area *argon2.Memory, release func(), err error) {
	start := time.Now()
	lane := 0
	if known {
		lane = 1
	}
	p.mu.Lock()
	if p.waiting >= p.queue {
		p.mu.Unlock()
		return nil, nil, errHashBusy()
	}
	w := &hashWaiter{addr: addr, got: make(chan *argon2.Memory, 1)}
	l := &p.lanes[lane]
	if len(l.queues[addr]) == 0 {
		l.ring = append(l.ring, addr)
	}
	l.queues[addr] = append(l.queues[addr], w)
	p.waiting++
	p.dispatch()
	p.mu.Unlock()

	timer := time.NewTimer(p.wait)
	defer timer.Stop()
	select {
	case area = <-w.got:
	case <-timer.C:
		err = errHashBusy()
	case <-ctx.Done():
		err = errs.Wrap(errs.Unavailable, ctx.Err(), "the service is temporarily unavailable, please retry")
	}
	if err != nil {
		p.mu.Lock()
		if p.leave(lane, w) {
			p.mu.Unlock()
			return nil, nil, err
		}
		p.mu.Unlock()
		area = <-w.got // granted meanwhile: it is ours
	}
	return area, func() { p.release(addr, area, time.Since(start)) }, nil
}

// leave takes w out of its lane's queue; false when it was granted an area already.
func (p *HashPool) leave(lane int, w *hashWaiter) bool {
	l := &p.lanes[lane]
	q := l.queues[w.addr]
	for i, x := range q {
		if x == w {
			q = append(q[:i:i], q[i+1:]...)
			p.waiting--
			if len(q) == 0 {
				delete(l.queues, w.addr)
				l.ring = remove(l.ring, w.addr)
			} else {
				l.queues[w.addr] = q
			}
			return true
		}
	}
	return false
}

func remove(ring []string, addr string) []string {
	for i, a := range ring {
		if a == addr {
			return append(ring[:i:i], ring[i+1:]...)
		}
	}
	return ring
}

func (p *HashPool) release(addr string, area *argon2.Memory, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holding[addr]--; p.holding[addr] <= 0 {
		delete(p.holding, addr)
	}
	p.free = append(p.free, area)
	// An exponentially weighted mean over about the last 8 verifications.
	if p.cost == 0 {
		p.cost = took
	} else {
		p.cost += (took - p.cost) / 8
	}
	p.dispatch()
}

// dispatch hands free areas to waiters: known devices first, then the other lane while
// more than the reserved areas are free, each lane's addresses in turn.
func (p *HashPool) dispatch() {
	for len(p.free) > 0 {
		if p.grant(1) {
			continue
		}
		if len(p.free) <= p.reserved || !p.grant(0) {
			return
		}
	}
}

// grant gives the next waiter of lane whose address may hold one more area a free area.
func (p *HashPool) grant(lane int) bool {
	l := &p.lanes[lane]
	for range len(l.ring) {
		addr := l.ring[0]
		l.ring = l.ring[1:]
		if p.perAddr > 0 && p.holding[addr] >= p.perAddr {
			l.ring = append(l.ring, addr)
			continue
		}
		q := l.queues[addr]
		w := q[0]
		if q = q[1:]; len(q) == 0 {
			delete(l.queues, addr)
		} else {
			l.queues[addr] = q
			l.ring = append(l.ring, addr)
		}
		area := p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		if area == nil {
			area = p.newArea()
		}
		p.holding[addr]++
		p.waiting--
		w.got <- area
		return true
	}
	return false
}
