package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// forwarder is a Kubernetes Service's cluster address for a service run as several
// replicas (HANGAR_DEV_REPLICAS): one stable address for its gRPC callers, each new
// connection sent to a ready replica in turn, as kube-proxy does. A replica that dies drops its
// connections; the callers' gRPC clients reconnect here and land on a live replica.
type forwarder struct {
	name     string
	ln       net.Listener
	replicas []*child
	// addr picks the replica's address this forwarder serves (gRPC or fields).
	addr func(*child) string
	next atomic.Uint64
	log  *slog.Logger
}

func (f *forwarder) serve(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		_ = f.ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.handle(ctx, c)
		}()
	}
}

// handle connects c to the first replica that accepts, ready ones first (a replica that is
// starting is tried only when no replica is ready: better than refusing outright).
func (f *forwarder) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	n := len(f.replicas)
	start := int(f.next.Add(1) % uint64(n))
	var ready, starting []*child
	for i := range n {
		r := f.replicas[(start+i)%n]
		if r.ready() {
			ready = append(ready, r)
		} else {
			starting = append(starting, r)
		}
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	for _, r := range append(ready, starting...) {
		up, err := d.DialContext(ctx, "tcp", f.addr(r))
		if err != nil {
			continue
		}
		pipe(c, up)
		return
	}
	f.log.Warn("forwarder: no replica accepts", "service", f.name)
}

// pipe copies both ways until either side ends, then closes both (the other side's peer
// sees the close and reconnects, as through a real proxy).
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	_ = a.Close()
	_ = b.Close()
	<-done
}
