package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/errs"
)

// leaky fails ListAvailablePlans the ways a handler's error carries internal text: the
// currency names the way.
type leaky struct {
	catalogv1.UnimplementedCatalogServiceServer
}

// downstream is what a Hangar service answers over gRPC for a look-alike e-mail (identity's
// ProvisionAccount): a marked status with a plain message.
func downstream() error {
	return errs.ToStatus(errs.Field("email", "Enter a valid e-mail address.")).Err()
}

func (leaky) ListAvailablePlans(_ context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	switch req.GetCurrency() {
	case "WRAPPED": // a downstream's status wrapped with context by an adapter
		return nil, fmt.Errorf("provision account: %w", downstream())
	case "REMOTE": // a downstream's status kept as an *errs.Error with the status as cause
		st, _ := status.FromError(downstream())
		e := errs.FromStatus(st)
		e.Cause = downstream()
		return nil, e
	case "TRANSPORT": // the client library's own status: its words are not for callers
		return nil, status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.7:9090: connect: connection refused"`)
	case "SQL":
		return nil, fmt.Errorf("read accounts: %w", &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: `relation "accounts" does not exist`})
	case "INTERNAL": // a bare internal status with driver text
		return nil, status.Error(codes.Internal, `ERROR: relation "accounts" does not exist (SQLSTATE 42P01)`)
	}
	return &catalogv1.ListAvailablePlansResponse{}, nil
}

var internalWords = []string{"rpc error", "desc =", "SQLSTATE", "relation", "transport", "dial tcp", "provision account"}

// No answer, REST or gRPC, carries gRPC status text or SQL/driver messages; a downstream's
// plain message and code survive being wrapped. A gift submit with a look-alike e-mail
// answered 'rpc error: code = InvalidArgument desc = …' before.
func TestNothingInternalGoesOut(t *testing.T) {
	t.Parallel()
	s, _, _ := startServerWith(t, leaky{}, nil)
	grpcAddr, httpAddr, _ := s.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := catalogv1.NewCatalogServiceClient(conn)
	for _, c := range []struct {
		currency string
		http     int
		code     codes.Code
		says     string
	}{
		{"WRAPPED", 400, codes.InvalidArgument, "Enter a valid e-mail address."},
		{"REMOTE", 400, codes.InvalidArgument, "Enter a valid e-mail address."},
		{"TRANSPORT", 503, codes.Unavailable, errs.PublicMessage(errs.Unavailable)},
		{"SQL", 500, codes.Internal, "internal error"},
		{"INTERNAL", 500, codes.Internal, "internal error"},
	} {
		t.Run(c.currency, func(t *testing.T) {
			a := do(t, "GET", "http://"+httpAddr+"/account/api/subscription/available/add-ons?currency="+c.currency, "", "")
			if a.status != c.http || a.body.Message != c.says {
				t.Errorf("REST = %d %s; want %d saying %q", a.status, a.raw, c.http, c.says)
			}
			_, err := client.ListAvailablePlans(context.Background(), &catalogv1.ListAvailablePlansRequest{Currency: c.currency})
			st := status.Convert(err)
			if st.Code() != c.code || st.Message() != c.says {
				t.Errorf("gRPC = %v %q; want %v %q", st.Code(), st.Message(), c.code, c.says)
			}
			for _, w := range internalWords {
				if strings.Contains(a.raw, w) || strings.Contains(st.Message(), w) {
					t.Errorf("answer shows %q: REST %s, gRPC %q", w, a.raw, st.Message())
				}
			}
		})
	}
}
