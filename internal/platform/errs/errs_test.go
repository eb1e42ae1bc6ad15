package errs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestEveryCodeMapsToGRPCAndHTTP(t *testing.T) {
	want := map[Code]int{
		Invalid: 400, NotFound: 404, Conflict: 409, Unauthorized: 401, Forbidden: 403,
		Exhausted: 429, Unavailable: 503, Internal: 500, Precondition: 412,
	}
	for code, httpCode := range want {
		st := ToStatus(E(code, "m"))
		if got := HTTPStatus(st.Code()); got != httpCode {
			t.Errorf("%s: HTTP %d, want %d", code, got, httpCode)
		}
		if back := FromStatus(st).Code; back != code {
			t.Errorf("%s: round trip through gRPC gives %s", code, back)
		}
	}
	if len(want) != len(grpcCodes) {
		t.Errorf("%d codes tested, %d mapped", len(want), len(grpcCodes))
	}
}

func TestFieldErrorsReachTheClient(t *testing.T) {
	st := ToStatus(fmt.Errorf("validate: %w", &Error{Code: Invalid, Message: "bad", Fields: []FieldError{{"email", "Please enter your email address."}}}))
	body := BodyOf(st)
	if body.Code != Invalid || body.Message != "bad" || len(body.FieldErrors) != 1 || body.FieldErrors[0].Field != "email" {
		t.Errorf("BodyOf = %+v", body)
	}
}

func TestInternalDetailIsNotShown(t *testing.T) {
	secret := errors.New("pq: password authentication failed for user hangar at 10.0.0.7")
	for _, err := range []error{secret, Wrap(Internal, secret, "could not save the order")} {
		st := ToStatus(err)
		if st.Code() != codes.Internal {
			t.Errorf("ToStatus(%v) code = %s", err, st.Code())
		}
		if got := st.Message(); got == secret.Error() || contains(got, "10.0.0.7") {
			t.Errorf("client sees internal detail: %q", got)
		}
	}
	if CodeOf(context.DeadlineExceeded) != Unavailable {
		t.Error("deadline should read as unavailable")
	}
	if HTTPStatus(codes.Code(99)) != http.StatusInternalServerError {
		t.Error("unknown gRPC code should be 500")
	}
}

// Another service's error passed on with its code, public message and cause (checkout's
// remoteErr of a payments refusal) reaches the client with that message only: the
// status of the wrapped chain quoted "rpc error: code = PermissionDenied desc = ...".
func TestPassedOnRemoteErrorShowsItsOwnMessage(t *testing.T) {
	remote := status.Error(codes.PermissionDenied, "This stored payment method cannot be used for this purchase.")
	e := FromStatus(status.Convert(remote))
	e.Cause = remote
	st := ToStatus(fmt.Errorf("place order: %w", e))
	if st.Code() != codes.PermissionDenied || st.Message() != "This stored payment method cannot be used for this purchase." {
		t.Errorf("ToStatus = %s %q", st.Code(), st.Message())
	}
	if st := ToStatus(fmt.Errorf("call: %w", remote)); st.Code() != codes.PermissionDenied {
		t.Errorf("a wrapped status alone = %s", st.Code())
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// A dependency that cannot be reached (PostgreSQL down: pgx wraps the dial's *net.OpError)
// is the same retryable 503 in every service, whether or not the service wrapped it.
func TestUnreachableDependencyIsUnavailable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, err := range []error{dial, fmt.Errorf("read billing profile: %w", dial)} {
		if got := CodeOf(err); got != Unavailable {
			t.Errorf("CodeOf(%v) = %s, want %s", err, got, Unavailable)
		}
		if got := HTTPStatus(ToStatus(err).Code()); got != http.StatusServiceUnavailable {
			t.Errorf("HTTP status of %v = %d, want 503", err, got)
		}
	}
	if got := CodeOf(errors.New("boom")); got != Internal {
		t.Errorf("CodeOf(plain error) = %s, want internal", got)
	}
}

func TestRetryAfterTravelsThroughGRPC(t *testing.T) {
	st := ToStatus(fmt.Errorf("login: %w", Throttled(42*time.Second, "wait")))
	if got := FromStatus(st).RetryAfter; got != 42*time.Second {
		t.Errorf("RetryAfter after the round trip = %s, want 42s", got)
	}
}

// A downstream's status wrapped with context (fmt.Errorf %w, or as an *Error's cause)
// keeps its code and its own message; status.FromError answered the whole chain's text,
// 'provision account: rpc error: code = InvalidArgument desc = …', which reached callers.
func TestWrappedStatusShowsOnlyItsOwnMessage(t *testing.T) {
	remote := status.Error(codes.InvalidArgument, "Enter a valid e-mail address.")
	kept := FromStatus(status.Convert(remote))
	kept.Cause = remote
	for _, err := range []error{fmt.Errorf("provision account: %w", remote), kept} {
		st := ToStatus(err)
		if st.Code() != codes.InvalidArgument || st.Message() != "Enter a valid e-mail address." {
			t.Errorf("ToStatus(%v) = %v %q", err, st.Code(), st.Message())
		}
		if CodeOf(err) != Invalid {
			t.Errorf("CodeOf(%v) = %s, want invalid_argument", err, CodeOf(err))
		}
	}
}
