package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Which handler failures are an outage to wait out, and which count toward MaxAttempts.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"connection refused":             {fmt.Errorf("failed to connect: %w", refused), true},
		"session terminated (57P01)":     {&pgconn.PgError{Severity: "FATAL", Code: "57P01"}, true},
		"connection exception (08006)":   {fmt.Errorf("record event in inbox: %w", &pgconn.PgError{Code: "08006"}), true},
		"lost database under Internal":   {errs.Wrap(errs.Internal, &pgconn.PgError{Code: "57P02"}, "failed"), true},
		"peer unavailable":               {status.Error(codes.Unavailable, "payments down"), true},
		"unique violation":               {&pgconn.PgError{Code: "23505"}, false},
		"business error":                 {errors.New("cannot handle poison"), false},
		"handler's own deadline":         {fmt.Errorf("query: %w", context.DeadlineExceeded), false},
		"peer's deadline":                {status.Error(codes.DeadlineExceeded, "slow"), false},
		"permanent, even if unreachable": {Permanent(refused), false},
		"no error":                       {nil, false},
	} {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("%s: unreachable(%v) = %v, want %v", name, c.err, got, c.want)
		}
	}
}
