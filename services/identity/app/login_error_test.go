package app_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/errs"
)

// A failed login is an error on both transports: UNAUTHENTICATED over gRPC (it was a
// success {status: fail} with the HTTP status in x-http-code metadata), HTTP 401 with the
// one body, which keeps the login form's {status: "fail", msg}.
func TestFailedLoginIsAnErrorOnBothTransports(t *testing.T) {
	t.Parallel()
	r := start(t)
	grpcAddr, _, _ := r.a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var header, trailer metadata.MD
	resp, err := identityv1.NewIdentityServiceClient(conn).Login(context.Background(),
		&identityv1.LoginRequest{Username: "owner@acme.hangar.test", Password: "wrong"}, grpc.Header(&header), grpc.Trailer(&trailer))
	st := status.Convert(err)
	if err == nil || st.Code() != codes.Unauthenticated || st.Message() != "Invalid email address or password." {
		t.Errorf("gRPC login = %v, %v; want UNAUTHENTICATED", resp, err)
	}
	if e := errs.FromStatus(st); e.Code != errs.Unauthorized {
		t.Errorf("gRPC error reads as %s", e.Code)
	}
	for _, md := range []metadata.MD{header, trailer} {
		for k := range md {
			if !strings.HasPrefix(k, "grpc-") && (strings.Contains(k, "http") || strings.Contains(k, "status")) {
				t.Errorf("gRPC metadata carries %s: %v", k, md[k])
			}
		}
	}
	b := newBrowser(t, r.base)
	b.do("GET", "/buy/api/me", "", false)
	code, body := b.do("POST", "/pricing/api/login", `{"username":"owner@acme.hangar.test","password":"wrong"}`, true)
	if code != 401 || body["status"] != "fail" || body["msg"] != "Invalid email address or password." || body["code"] != "unauthenticated" {
		t.Errorf("HTTP login = %d %v", code, body)
	}
}
