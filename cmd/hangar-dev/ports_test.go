package main

import (
	"net"
	"slices"
	"testing"
)

// portListener is a listener that only answers its address.
type portListener struct {
	net.Listener
	addr *net.TCPAddr
}

func (l portListener) Addr() net.Addr { return l.addr }
func (l portListener) Close() error   { return nil }

// The kernel may hand a port that an earlier call found free (and closed) to a later
// listen: the replicas' addresses are each handed out once in a run, the repeats drawn
// again. (Two replicas were given one port: checkout's admin and a geo replica's gRPC.)
func TestChildPortsHandsEachPortOutOnce(t *testing.T) {
	t.Parallel()
	kernel := []int{40001, 40002, 40001, 40003, 40002, 40004}
	p := newChildPorts()
	p.listen = func() (net.Listener, error) {
		port := kernel[0]
		kernel = kernel[1:]
		return portListener{addr: &net.TCPAddr{IP: net.ParseIP(childHost), Port: port}}, nil
	}
	first, err := p.addrs(2)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.addrs(2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.0.0.2:40001", "127.0.0.2:40002", "127.0.0.2:40003", "127.0.0.2:40004"}
	if got := append(first, second...); !slices.Equal(got, want) {
		t.Errorf("addresses %v, want %v (each port once)", got, want)
	}
	// A kernel that only repeats what was handed out: an error, not a loop.
	p.listen = func() (net.Listener, error) {
		return portListener{addr: &net.TCPAddr{IP: net.ParseIP(childHost), Port: 40001}}, nil
	}
	if _, err := p.addrs(1); err == nil {
		t.Error("addrs with no new port answered no error")
	}
}
