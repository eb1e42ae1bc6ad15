package kafka

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kerr"
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
// held closes when the first request is held. release(false) lets the held requests (and
// every later one) be appended as usual, after the writer may have given up on them;
// release(true) answers them with a broker error that is not retried and appends nothing
// (the broker lost them), the later ones going through.
func (b *Broker) HoldProduce(pass int) (held <-chan struct{}, release func(lose bool)) {
	heldCh, releaseCh := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	var lost atomic.Bool
	var heldOnce, releaseOnce sync.Once
	b.c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
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
		if !lost.Load() {
			return nil, nil, false
		}
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		resp.SetVersion(req.GetVersion())
		for _, t := range req.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.UnknownServerError.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		b.c.KeepControl() // answering drops a control; the other held requests need it too
		return resp, nil, true
	})
	return heldCh, func(lose bool) {
		releaseOnce.Do(func() {
			lost.Store(lose)
			close(releaseCh)
		})
	}
}

// Trim applies the broker's retention now, as a bounded broker does every interval.
func (b *Broker) Trim() { b.c.ApplyRetention() }
