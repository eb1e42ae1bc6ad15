package kafka

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// CountRequests counts the requests of kind key (a kmsg.Key) the broker receives from now
// on, letting each through.
func (b *Broker) CountRequests(key kmsg.Key) *atomic.Int64 {
	var n atomic.Int64
	b.c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

// HoldProduce lets the next pass produce requests through and holds every later one,
// unanswered, until release: a broker that has taken a write and not yet acknowledged it.
// held closes when the first request is held. Released requests are then appended as
// usual (the write lands after the writer may have given up on it).
func (b *Broker) HoldProduce(pass int) (held <-chan struct{}, release func()) {
	heldCh, releaseCh := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	var heldOnce, releaseOnce sync.Once
	b.c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		if n.Add(1) <= int64(pass) {
			return nil, nil, false
		}
		select {
		case <-releaseCh:
			return nil, nil, false
		default:
		}
		heldOnce.Do(func() { close(heldCh) })
		// Sleeping, not blocking: the broker goes on serving other connections meanwhile.
		b.c.SleepControl(func() { <-releaseCh })
		return nil, nil, false
	})
	return heldCh, func() { releaseOnce.Do(func() { close(releaseCh) }) }
}
