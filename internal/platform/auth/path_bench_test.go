package auth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// previewer answers PreviewInvoice with a priced invoice, reading the caller and the client
// as checkout's handlers do.
type previewer struct {
	checkoutv1.UnimplementedCheckoutServiceServer
}

func (previewer) PreviewInvoice(ctx context.Context, req *checkoutv1.PreviewInvoiceRequest) (*checkoutv1.PreviewInvoiceResponse, error) {
	c, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if cl, ok := auth.ClientFrom(ctx); !ok || cl.Addr == "" || cl.Device == "" {
		return nil, auth.ErrLoginRequired
	}
	_ = auth.UserAgent(ctx)
	cfg := req.GetConfiguration()
	items := make([]*checkoutv1.InvoiceItem, 0, len(cfg.GetAddOns()))
	for _, a := range cfg.GetAddOns() {
		items = append(items, &checkoutv1.InvoiceItem{Type: "addon", AddOnCode: a, PlanType: "annual", Description: "Add-on " + a + " for " + c.AccountUUID})
	}
	return &checkoutv1.PreviewInvoiceResponse{
		Invoice:   &checkoutv1.Invoice{Currency: cfg.GetCurrency(), InvoiceItems: items},
		AddOns:    cfg.GetAddOns(),
		Currency:  cfg.GetCurrency(),
		QuoteId:   "q-7f3c1b2a",
		QuoteHash: "c2f1e0d9b8a7",
	}, nil
}

// BenchmarkPublicRequestPath is one checkout-like REST call (a logged-in browser's POST with
// its cookies, XSRF token and origin) through a service's whole public stack as the dev edge
// calls it: otelhttp, RED, panic recovery, headers, admission, the readiness gate, the input
// guard, CSRF and session middleware, the gateway, the in-process connection with the gRPC
// interceptors (session resolution and the client recorder included), and the JSON answer.
func BenchmarkPublicRequestPath(b *testing.B) {
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "bench")
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: time.Second,
		AdmitReads: 64, AdmitWrites: 64, AdmitInternal: 64}
	// As hangar-dev traces without an OTLP endpoint: ids propagate, nothing is recorded.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	s := server.New("bench", cfg, server.Deps{Logger: slog.New(slog.DiscardHandler), Registry: reg, Tracer: tp, Propagator: telemetry.Propagator(), RED: red})
	checkoutv1.RegisterCheckoutServiceServer(s, previewer{})
	s.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return checkoutv1.RegisterCheckoutServiceHandlerClient(ctx, mux, checkoutv1.NewCheckoutServiceClient(conn))
	})
	auth.Install(s, auth.Options{Resolver: alice, CSRF: auth.CSRFConfig{AllowedOrigins: []string{"https://store.example.com"}}})
	s.UseUnary(auth.ClientInterceptor(0))
	if err := s.Listen(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	// A first call over the listener waits for Run, which installs the handler before it serves.
	_, httpAddr, _ := s.Addrs()
	if code, body, _ := do(b, "GET", "http://"+httpAddr+"/buy/api/invoice/preview", nil); code != http.StatusMethodNotAllowed && code != http.StatusNotFound {
		b.Fatalf("GET = %d %s", code, body)
	}

	xsrf := auth.SessionXSRF("alice-token")
	cookie := "_ga=GA1.1.123456789.1700000000; " + auth.SessionCookie + "=alice-token; " + auth.XSRFCookie + "=" + xsrf +
		"; " + auth.DeviceCookie + "=dev-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd; consent=analytics%3Dno"
	const body = `{"email":"alice@example.com","currency":"USD","addOns":["na_vfr","na_ifr","chart_eu"],"quantity":1,"isEulaChecked":true,"billingInfo":{"country":"US","zipcode":"67202"}}`
	h := s.Handler()
	call := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/buy/api/invoice/preview", strings.NewReader(body))
		req.RemoteAddr = "198.51.100.7:53124"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/plain, */*")
		req.Header.Set("Accept-Language", "en-US,en;q=0.9")
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36")
		req.Header.Set("Origin", "https://store.example.com")
		req.Header.Set("Referer", "https://store.example.com/buy")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Sec-Fetch-Mode", "cors")
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		req.Header.Set(auth.XSRFHeader, xsrf)
		req.Header.Set("Cookie", cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := call(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"quoteId":"q-7f3c1b2a"`) {
		b.Fatalf("POST = %d %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := call(); rec.Code != http.StatusOK {
			b.Fatalf("POST = %d %s", rec.Code, rec.Body)
		}
	}
}
