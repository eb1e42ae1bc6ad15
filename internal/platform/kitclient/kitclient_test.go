package kitclient_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/durationpb"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/kitclient"
)

// payments is a real gRPC server on loopback whose answers the test scripts: each call
// counts, then answers the next scripted error (nil: success) or stalls until the
// caller gives up.
type payments struct {
	paymentsv1.UnimplementedPaymentsServiceServer
	calls  atomic.Int32
	answer func(n int32) error
	stall  bool
	gaveUp chan struct{}
}

func (p *payments) do(ctx context.Context) error {
	n := p.calls.Add(1)
	if p.stall {
		<-ctx.Done()
		p.gaveUp <- struct{}{}
		return ctx.Err()
	}
	return p.answer(n)
}

func (p *payments) Charge(ctx context.Context, _ *paymentsv1.ChargeRequest) (*paymentsv1.ChargeResponse, error) {
	if err := p.do(ctx); err != nil {
		return nil, err
	}
	return &paymentsv1.ChargeResponse{Charge: &paymentsv1.Charge{Id: "ch_1"}}, nil
}

func (p *payments) GetCharge(ctx context.Context, _ *paymentsv1.GetChargeRequest) (*paymentsv1.GetChargeResponse, error) {
	if err := p.do(ctx); err != nil {
		return nil, err
	}
	return &paymentsv1.GetChargeResponse{Charge: &paymentsv1.Charge{Id: "ch_1"}}, nil
}

func serve(t *testing.T, p *payments, cfg kitclient.Config) paymentsv1.PaymentsServiceClient {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	paymentsv1.RegisterPaymentsServiceServer(srv, p)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	cfg.Client = "payments"
	if cfg.Backoff == nil {
		cfg.Backoff = func() backoff.BackOff { return &backoff.ZeroBackOff{} }
	}
	conn, err := kitclient.Dial(ln.Addr().String(), cfg, noop.NewTracerProvider(), propagation.TraceContext{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return paymentsv1.NewPaymentsServiceClient(conn)
}

func unavailable(int32) error { return status.Error(codes.Unavailable, "down") }

func TestNonIdempotentCallsAreTriedOnce(t *testing.T) {
	t.Parallel()
	p := &payments{answer: unavailable}
	c := serve(t, p, kitclient.Config{})
	_, err := c.Charge(context.Background(), &paymentsv1.ChargeRequest{Amount: 100}) // no idempotency key
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("Charge = %v, want unavailable", err)
	}
	if n := p.calls.Load(); n != 1 {
		t.Errorf("a charge without an idempotency key was sent %d times; a retry could charge twice", n)
	}
}

func TestIdempotentCallsAreRetried(t *testing.T) {
	t.Parallel()
	// Fails twice, then answers.
	p := &payments{answer: func(n int32) error {
		if n < 3 {
			return status.Error(codes.Unavailable, "restarting")
		}
		return nil
	}}
	c := serve(t, p, kitclient.Config{Tries: 3})
	resp, err := c.Charge(context.Background(), &paymentsv1.ChargeRequest{IdempotencyKey: "k1", Amount: 100})
	if err != nil || resp.GetCharge().GetId() != "ch_1" {
		t.Fatalf("Charge with a key = %v, %v; want the charge after two retries", resp, err)
	}
	if n := p.calls.Load(); n != 3 {
		t.Errorf("calls = %d, want 3", n)
	}

	// A read named idempotent is retried too, but an answer (not found) is not.
	p2 := &payments{answer: func(int32) error { return status.Error(codes.NotFound, "no such charge") }}
	c2 := serve(t, p2, kitclient.Config{Idempotent: []string{"GetCharge"}})
	if _, err := c2.GetCharge(context.Background(), &paymentsv1.GetChargeRequest{ChargeId: "x"}); status.Code(err) != codes.NotFound {
		t.Fatalf("GetCharge = %v, want not found", err)
	}
	if n := p2.calls.Load(); n != 1 {
		t.Errorf("an answer was retried: %d calls", n)
	}
	p3 := &payments{answer: unavailable}
	c3 := serve(t, p3, kitclient.Config{Idempotent: []string{"GetCharge"}, Tries: 4})
	if _, err := c3.GetCharge(context.Background(), &paymentsv1.GetChargeRequest{ChargeId: "x"}); status.Code(err) != codes.Unavailable {
		t.Fatalf("GetCharge = %v, want unavailable", err)
	}
	if n := p3.calls.Load(); n != 4 {
		t.Errorf("an idempotent read was tried %d times, want 4", n)
	}
}

func TestDeadlineBoundsEachCall(t *testing.T) {
	t.Parallel()
	p := &payments{stall: true, gaveUp: make(chan struct{}, 1)}
	c := serve(t, p, kitclient.Config{Timeout: time.Hour, Timeouts: map[string]time.Duration{"Charge": 50 * time.Millisecond}})
	// The caller sets no deadline of its own: the chain's must end the call.
	_, err := c.Charge(context.Background(), &paymentsv1.ChargeRequest{Amount: 100})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Charge against a stalled server = %v, want deadline exceeded", err)
	}
	// The server saw the call's deadline too, when the call reached it: on a loaded
	// machine the 50 ms can pass before the call is sent, and then it never arrives.
	if p.calls.Load() > 0 {
		<-p.gaveUp
	}
	if n := p.calls.Load(); n > 1 {
		t.Errorf("calls = %d, want at most 1: a call past its deadline is not tried again", n)
	}
}

func TestBreakerOpensAndFailsFast(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	p := &payments{answer: unavailable}
	c := serve(t, p, kitclient.Config{Failures: 3, Cooldown: time.Hour, Registry: reg})
	ctx := context.Background()

	// Answers are not failures: they never open the breaker.
	p.answer = func(int32) error { return status.Error(codes.FailedPrecondition, "card declined") }
	for range 5 {
		if _, err := c.Charge(ctx, &paymentsv1.ChargeRequest{}); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("Charge = %v, want the decline", err)
		}
	}
	p.answer = unavailable
	for range 3 {
		if _, err := c.Charge(ctx, &paymentsv1.ChargeRequest{}); status.Code(err) != codes.Unavailable {
			t.Fatalf("Charge = %v, want unavailable", err)
		}
	}
	for range 10 {
		_, err := c.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "k"})
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "circuit open") {
			t.Fatalf("Charge while open = %v, want unavailable (circuit open)", err)
		}
	}
	if n := p.calls.Load(); n != 8 {
		t.Errorf("server called %d times, want 8: an open breaker must not call it (nor retry)", n)
	}
	if got := breakerState(t, reg); got != float64(gobreaker.StateOpen) {
		t.Errorf("hangar_client_breaker_state = %v, want %d (open)", got, gobreaker.StateOpen)
	}
	if got := testutil.CollectAndCount(reg, "hangar_client_requests_total"); got != 1 {
		t.Errorf("requests series = %d, want 1 (payments/Charge)", got)
	}
}

func breakerState(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "hangar_client_breaker_state" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("no hangar_client_breaker_state metric")
	return 0
}

func TestBreakerRecoversAfterCooldown(t *testing.T) {
	t.Parallel()
	p := &payments{answer: unavailable}
	c := serve(t, p, kitclient.Config{Failures: 1, Cooldown: time.Millisecond})
	if _, err := c.GetCharge(context.Background(), &paymentsv1.GetChargeRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("GetCharge = %v", err)
	}
	p.answer = func(int32) error { return nil }
	// After the cooldown the probe goes through and closes the breaker again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := c.GetCharge(context.Background(), &paymentsv1.GetChargeRequest{})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("breaker never let a probe through: %v", err)
		}
	}
}

// A 429 is an answer about one client (payments refusing a card tester for minutes): it
// neither opens the breaker, which would refuse every buyer, nor is retried at once when
// it names its wait.
func TestThrottledAnswersDoNotOpenTheBreaker(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	p := &payments{answer: func(int32) error {
		st, _ := status.New(codes.ResourceExhausted, "Too many declined card attempts.").
			WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(10 * time.Minute)})
		return st.Err()
	}}
	c := serve(t, p, kitclient.Config{Failures: 3, Cooldown: time.Hour, Registry: reg})
	for range 10 {
		if _, err := c.Charge(context.Background(), &paymentsv1.ChargeRequest{IdempotencyKey: "k"}); status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("Charge = %v, want resource_exhausted", err)
		}
	}
	if n := p.calls.Load(); n != 10 {
		t.Errorf("server called %d times, want 10: a throttled call is neither retried nor cut off", n)
	}
	if got := breakerState(t, reg); got != float64(gobreaker.StateClosed) {
		t.Errorf("breaker state = %v, want closed", got)
	}
}
