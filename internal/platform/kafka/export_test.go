package kafka

import (
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
