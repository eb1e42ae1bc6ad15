package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/errs"
)

// refusing answers each failure the store's handlers raise, chosen by the currency.
type refusing struct {
	catalogv1.UnimplementedCatalogServiceServer
}

var fresh = &catalogv1.ListAvailablePlansResponse{Version: "fresh"} // stands for the fresh preview

func (refusing) ListAvailablePlans(_ context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	switch req.GetCurrency() {
	case "DECLINE":
		return nil, &errs.Error{Code: errs.Declined, Reason: "PAYMENT_DECLINED", Message: "Do Not Honor"}
	case "QUOTE":
		return nil, &errs.Error{Code: errs.Conflict, Reason: "QUOTE_CHANGED", Message: "The price changed.", Preview: fresh}
	case "LOGIN":
		return nil, &errs.Error{Code: errs.Unauthorized, Message: "Please log in.", Errors: []string{"Name cannot be blank", "Please log in."}, RequireLogin: true}
	case "INVALID":
		return nil, &errs.Error{Code: errs.Invalid, Message: "Credit Card cannot be blank", Errors: []string{"Credit Card cannot be blank", "Name cannot be blank"}}
	case "MISSING":
		return nil, errs.E(errs.NotFound, "No such plan.")
	case "METHOD":
		return nil, errs.E(errs.MethodNotAllowed, "Not here.")
	}
	return &catalogv1.ListAvailablePlansResponse{}, nil
}

// Every failure is one errs code mapped once: a gRPC caller gets an error (not a 200 with a
// status hidden in metadata), the HTTP caller the code's status and the one body, and no
// HTTP status travels in metadata or headers. Checkout's declines, quote changes and
// validation failures were successes over gRPC, with x-checkout-http-code in metadata.
func TestEveryFailureMapsOnceToGRPCAndHTTP(t *testing.T) {
	t.Parallel()
	s, _, _ := startServerWith(t, refusing{}, nil)
	grpcAddr, httpAddr, _ := s.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := catalogv1.NewCatalogServiceClient(conn)
	for _, c := range []struct {
		currency string
		grpc     codes.Code
		http     int
		body     string // the whole HTTP body
	}{
		{"DECLINE", codes.FailedPrecondition, 402, `{"code":"payment_declined","message":"Do Not Honor","reason":"PAYMENT_DECLINED","status":"fail","errors":["Do Not Honor"],"msg":"Do Not Honor"}`},
		{"QUOTE", codes.Aborted, 409, `{"code":"conflict","message":"The price changed.","reason":"QUOTE_CHANGED","status":"fail","errors":["The price changed."],"msg":"The price changed.","preview":{"version":"fresh","currencies":[],"plans":{}}}`},
		{"LOGIN", codes.Unauthenticated, 401, `{"code":"unauthenticated","message":"Please log in.","reason":"UNAUTHENTICATED","status":"fail","errors":["Name cannot be blank","Please log in."],"msg":"Please log in.","requireLogin":true}`},
		{"INVALID", codes.InvalidArgument, 400, `{"code":"invalid_argument","message":"Credit Card cannot be blank","reason":"INVALID_ARGUMENT","status":"fail","errors":["Credit Card cannot be blank","Name cannot be blank"],"msg":"Credit Card cannot be blank"}`},
		{"MISSING", codes.NotFound, 404, `{"code":"not_found","message":"No such plan.","reason":"NOT_FOUND","status":"fail","errors":["No such plan."],"msg":"No such plan."}`},
		{"METHOD", codes.Unimplemented, 405, `{"code":"method_not_allowed","message":"Not here.","reason":"METHOD_NOT_ALLOWED","status":"fail","errors":["Not here."],"msg":"Not here."}`},
	} {
		t.Run(c.currency, func(t *testing.T) {
			var header, trailer metadata.MD
			resp, err := client.ListAvailablePlans(context.Background(), &catalogv1.ListAvailablePlansRequest{Currency: c.currency},
				grpc.Header(&header), grpc.Trailer(&trailer))
			st := status.Convert(err)
			if err == nil || st.Code() != c.grpc || resp != nil {
				t.Errorf("gRPC = %v, %v; want an error with code %s", resp, err, c.grpc)
			}
			e := errs.FromStatus(st)
			if want := errs.BodyOf(st); e.Code != want.Code || st.Message() == "" {
				t.Errorf("gRPC error reads as %+v", e)
			}
			if c.currency == "QUOTE" && !isFresh(e.Preview) {
				t.Errorf("gRPC caller gets no fresh preview: %v", st.Details())
			}
			noStatusIn(t, "gRPC header", header)
			noStatusIn(t, "gRPC trailer", trailer)

			a := do(t, "GET", "http://"+httpAddr+"/account/api/subscription/available/add-ons?currency="+c.currency, "", "")
			if a.status != c.http || strings.TrimSpace(a.raw) != c.body {
				t.Errorf("HTTP = %d %s\nwant %d %s", a.status, a.raw, c.http, c.body)
			}
			noStatusInHeaders(t, a.header)
		})
	}
	// The gateway's own refusals take the same path.
	for _, c := range []struct {
		method, path string
		http         int
		code         errs.Code
	}{
		{"POST", "/account/api/subscription/available/add-ons", 405, errs.MethodNotAllowed},
		{"GET", "/account/api/no-such-route", 404, errs.NotFound},
	} {
		a := do(t, c.method, "http://"+httpAddr+c.path, "application/json", "{}")
		if a.status != c.http || a.body.Code != c.code || a.body.Status != "fail" || len(a.body.Errors) != 1 {
			t.Errorf("%s %s = %d %s; want %d %s", c.method, c.path, a.status, a.raw, c.http, c.code)
		}
		noStatusInHeaders(t, a.header)
	}
}

func isFresh(m any) bool {
	p, ok := m.(*catalogv1.ListAvailablePlansResponse)
	return ok && p.GetVersion() == "fresh"
}

// noStatusIn fails when metadata carries an HTTP status (checkout's x-checkout-http-code,
// identity's x-http-code).
func noStatusIn(t *testing.T, what string, md metadata.MD) {
	t.Helper()
	for k := range md {
		if strings.HasPrefix(k, "grpc-") { // the gRPC status itself (grpc-status-details-bin)
			continue
		}
		if strings.Contains(k, "http") || strings.Contains(k, "status") {
			t.Errorf("%s carries %s: %v", what, k, md[k])
		}
	}
}

func noStatusInHeaders(t *testing.T, h http.Header) {
	t.Helper()
	for k := range h {
		if l := strings.ToLower(k); strings.HasPrefix(l, "grpc-") || strings.Contains(l, "http-code") || strings.Contains(l, "status") {
			t.Errorf("HTTP header %s: %v", k, h[k])
		}
	}
}
