package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/errs"
)

// A refused submit is one error through both transports: a gRPC caller gets an error with
// the code and the details the page needs (not a success with the HTTP status in
// x-checkout-http-code metadata, as before), the HTTP caller the status and the one body.
func TestSubmitRefusalsThroughBothTransports(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	grpcAddr, _, _ := st.app.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := checkoutv1.NewCheckoutServiceClient(conn)
	existing := `{"email":"pilot@demo.hangar.test","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"]}`
	for _, c := range []struct {
		name   string
		body   func() string // a submit body (each transport gets its own nonce)
		grpc   codes.Code
		http   int
		code   errs.Code
		reason string
		check  func(t *testing.T, b map[string]any, e *errs.Error)
	}{
		{"decline", func() string {
			return quoted(t, st.base, newBuyer("x-decline"), st.tokenize(t, "4000000000000002"), "")
		},
			codes.FailedPrecondition, 402, errs.Declined, "PAYMENT_DECLINED", func(t *testing.T, b map[string]any, e *errs.Error) {
				// payments' words for the bank's refusal, as payments answers them (issue 45: never
				// the processor's "Do Not Honor").
				if want := "Your bank declined this card"; !strings.Contains(e.Message, want) || !strings.Contains(b["message"].(string), want) || strings.Contains(e.Message, "Honor") {
					t.Errorf("not payments' message: %q / %v", e.Message, b["message"])
				}
			}},
		{"quote changed", func() string {
			return strings.Replace(quoted(t, st.base, newBuyer("x-quote"), st.tokenize(t, "4111111111111111"), ""), `"quoteId":"`, `"quoteId":"q_1_0`, 1)
		}, codes.Aborted, 409, errs.Conflict, "QUOTE_CHANGED", func(t *testing.T, b map[string]any, e *errs.Error) {
			pv, _ := e.Preview.(*checkoutv1.PreviewInvoiceResponse)
			hp, _ := b["preview"].(map[string]any)
			if pv.GetQuoteId() == "" || hp["quoteId"] == nil || hp["quoteId"] == "" {
				t.Errorf("no fresh preview: gRPC %v, HTTP %v", e.Preview, b["preview"])
			}
		}},
		{"login required", func() string { return quoted(t, st.base, existing, st.tokenize(t, "4111111111111111"), "") },
			codes.Unauthenticated, 401, errs.Unauthorized, "UNAUTHENTICATED", func(t *testing.T, b map[string]any, e *errs.Error) {
				if !e.RequireLogin || b["requireLogin"] != true {
					t.Errorf("requireLogin: gRPC %v, HTTP %v", e.RequireLogin, b["requireLogin"])
				}
			}},
		{"validation", func() string {
			return quoted(t, st.base, newBuyer("x-val"), "", "") // no card
		}, codes.InvalidArgument, 400, errs.Invalid, "INVALID_ARGUMENT", func(t *testing.T, b map[string]any, e *errs.Error) {
			if !strings.Contains(strings.Join(e.Errors, "|"), "Credit Card cannot be blank") || !strings.Contains(toString(b["errors"]), "Credit Card cannot be blank") {
				t.Errorf("errors: gRPC %v, HTTP %v", e.Errors, b["errors"])
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg checkoutv1.Configuration
			if err := protojson.Unmarshal([]byte(c.body()), &cfg); err != nil {
				t.Fatal(err)
			}
			var header, trailer metadata.MD
			ctx := metadata.AppendToOutgoingContext(context.Background(), "idempotency-key", "grpc-"+c.name, "x-forwarded-for", "10.77.0.1")
			resp, err := client.SubmitInvoice(ctx, &checkoutv1.SubmitInvoiceRequest{Configuration: &cfg}, grpc.Header(&header), grpc.Trailer(&trailer))
			s := status.Convert(err)
			if err == nil || s.Code() != c.grpc {
				t.Fatalf("gRPC = %v, %v; want an error with %s", resp, err, c.grpc)
			}
			e := errs.FromStatus(s)
			if e.Code != c.code || e.Reason != c.reason {
				t.Errorf("gRPC error %s %s, want %s %s", e.Code, e.Reason, c.code, c.reason)
			}
			noHTTPStatusIn(t, header, trailer)

			code, b, hdr := submitWithHeaders(t, st.base, "http-"+c.name, c.body())
			if code != c.http || b["code"] != string(c.code) || b["reason"] != c.reason || b["status"] != "fail" || b["message"] != b["msg"] {
				t.Errorf("HTTP = %d %v; want %d %s %s", code, b, c.http, c.code, c.reason)
			}
			for k := range hdr {
				if l := strings.ToLower(k); strings.Contains(l, "http-code") || strings.HasPrefix(l, "grpc-") {
					t.Errorf("HTTP header %s: %v", k, hdr[k])
				}
			}
			c.check(t, b, e)
		})
	}
	t.Run("not found and method not allowed", func(t *testing.T) {
		_, err := client.GetReceipt(context.Background(), &checkoutv1.GetReceiptRequest{InvoiceId: "00000000-0000-4000-8000-00000000dead"})
		if s := status.Convert(err); s.Code() != codes.NotFound {
			t.Errorf("gRPC receipt = %v", err)
		}
		if code, m := call(t, "GET", st.base+"/buy/api/receipt/00000000-0000-4000-8000-00000000dead", ""); code != 404 || m["code"] != "not_found" {
			t.Errorf("HTTP receipt = %d %v", code, m)
		}
		if code, m := call(t, "GET", st.base+"/buy/api/invoice/submit", ""); code != 405 || m["code"] != "method_not_allowed" {
			t.Errorf("GET submit = %d %v", code, m)
		}
	})
}

func toString(v any) string {
	var parts []string
	for _, x := range v.([]any) {
		parts = append(parts, x.(string))
	}
	return strings.Join(parts, "|")
}

func noHTTPStatusIn(t *testing.T, mds ...metadata.MD) {
	t.Helper()
	for _, md := range mds {
		for k := range md {
			if !strings.HasPrefix(k, "grpc-") && (strings.Contains(k, "http") || strings.Contains(k, "status")) {
				t.Errorf("gRPC metadata carries %s: %v", k, md[k])
			}
		}
	}
}

// submitWithHeaders is submitRaw answering the response headers too.
func submitWithHeaders(t *testing.T, base, key, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/buy/api/invoice/submit", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf")
	req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("submit: %d %v", resp.StatusCode, err)
	}
	return resp.StatusCode, m, resp.Header
}
