package errs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestEveryCodeMapsToGRPCAndHTTP(t *testing.T) {
	t.Parallel()
	want := map[Code]int{
		Invalid: 400, NotFound: 404, Conflict: 409, Unauthorized: 401, Forbidden: 403,
		Exhausted: 429, Unavailable: 503, Internal: 500, Precondition: 412,
		Declined: 402, MethodNotAllowed: 405, TooLarge: 413,
	}
	for code, httpCode := range want {
		st := ToStatus(E(code, "m"))
		if st.Code() == codes.OK || st.Code() == codes.Unknown {
			t.Errorf("%s: gRPC %s", code, st.Code())
		}
		if back := FromStatus(st).Code; back != code {
			t.Errorf("%s: round trip through gRPC gives %s", code, back)
		}
		if got := HTTPStatus(FromStatus(st).Code); got != httpCode {
			t.Errorf("%s: HTTP %d, want %d", code, got, httpCode)
		}
		if b := BodyOf(st); b.Code != code || b.Status != "fail" || b.Msg != "m" || len(b.Errors) != 1 || b.Errors[0] != "m" {
			t.Errorf("%s: body %+v", code, b)
		}
	}
	if len(want) != len(transports) {
		t.Errorf("%d codes tested, %d mapped", len(want), len(transports))
	}
}

func TestFieldErrorsReachTheClient(t *testing.T) {
	t.Parallel()
	st := ToStatus(fmt.Errorf("validate: %w", &Error{Code: Invalid, Message: "bad", Fields: []FieldError{{"email", "Please enter your email address."}}}))
	body := BodyOf(st)
	if body.Code != Invalid || body.Message != "bad" || len(body.FieldErrors) != 1 || body.FieldErrors[0].Field != "email" {
		t.Errorf("BodyOf = %+v", body)
	}
}

func TestInternalDetailIsNotShown(t *testing.T) {
	t.Parallel()
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
	if HTTPStatus(FromGRPCCode(codes.Code(99))) != http.StatusInternalServerError {
		t.Error("unknown gRPC code should be 500")
	}
}

// Another service's error passed on with its code, public message and cause (checkout's
// remoteErr of a payments refusal) reaches the client with that message only: the
// status of the wrapped chain quoted "rpc error: code = PermissionDenied desc = ...".
func TestPassedOnRemoteErrorShowsItsOwnMessage(t *testing.T) {
	t.Parallel()
	remote := ToStatus(E(Forbidden, "This stored payment method cannot be used for this purchase.")).Err()
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
	t.Parallel()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, err := range []error{dial, fmt.Errorf("read billing profile: %w", dial)} {
		if got := CodeOf(err); got != Unavailable {
			t.Errorf("CodeOf(%v) = %s, want %s", err, got, Unavailable)
		}
		if got := HTTPStatus(FromStatus(ToStatus(err)).Code); got != http.StatusServiceUnavailable {
			t.Errorf("HTTP status of %v = %d, want 503", err, got)
		}
	}
	if got := CodeOf(errors.New("boom")); got != Internal {
		t.Errorf("CodeOf(plain error) = %s, want internal", got)
	}
}

func TestRetryAfterTravelsThroughGRPC(t *testing.T) {
	t.Parallel()
	st := ToStatus(fmt.Errorf("login: %w", Throttled(42*time.Second, "wait")))
	if got := FromStatus(st).RetryAfter; got != 42*time.Second {
		t.Errorf("RetryAfter after the round trip = %s, want 42s", got)
	}
}

// A downstream's status wrapped with context (fmt.Errorf %w, or as an *Error's cause)
// keeps its code and its own message; status.FromError answered the whole chain's text,
// 'provision account: rpc error: code = InvalidArgument desc = …', which reached callers.
func TestWrappedStatusShowsOnlyItsOwnMessage(t *testing.T) {
	t.Parallel()
	remote := ToStatus(Field("email", "Enter a valid e-mail address.")).Err()
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

// A refusal's answer (reason, every problem, requireLogin, a typed detail) crosses gRPC
// as status details and comes back whole: the gateway builds the HTTP body from the
// status alone, and a gRPC caller reads the same details.
func TestRefusalDetailsTravelThroughGRPC(t *testing.T) {
	t.Parallel()
	preview := &errdetails.LocalizedMessage{Locale: "en", Message: "not a preview"} // google.rpc: never an answer
	typed := &durationpb.Duration{Seconds: 7}                                       // stands for checkout's preview
	e := &Error{Code: Conflict, Reason: "QUOTE_CHANGED", Message: "changed", Errors: []string{"a", "b"}, RequireLogin: true,
		Fields: []FieldError{{"email", "bad e-mail"}}, Preview: typed}
	st := ToStatus(fmt.Errorf("submit: %w", e))
	if st.Code() != codes.Aborted || !IsMarked(st) {
		t.Fatalf("status %s marked %v", st.Code(), IsMarked(st))
	}
	back := FromStatus(status.Convert(st.Err()))
	if back.Code != Conflict || back.Reason != "QUOTE_CHANGED" || !back.RequireLogin || fmt.Sprint(back.Errors) != "[a b]" ||
		len(back.Fields) != 1 || back.Fields[0].Field != "email" || !proto.Equal(back.Preview, typed) {
		t.Errorf("FromStatus = %+v", back)
	}
	b := BodyOf(st)
	if b.Reason != "QUOTE_CHANGED" || fmt.Sprint(b.Errors) != "[a b]" || string(b.Preview) != `"7s"` || !b.RequireLogin {
		t.Errorf("BodyOf = %+v (preview %s)", b, b.Preview)
	}
	withOther, _ := status.New(codes.InvalidArgument, "x").WithDetails(preview)
	if FromStatus(withOther).Preview != nil {
		t.Error("a google.rpc detail read as a preview")
	}
	// Without a finer reason, the code's own name.
	if b := BodyOf(ToStatus(E(Invalid, "m"))); b.Reason != "INVALID_ARGUMENT" || b.RequireLogin || b.Preview != nil || b.FieldErrors != nil {
		t.Errorf("plain error body = %+v", b)
	}
}

// A status no Hangar handler made keeps its class but not its words; a marked one is kept.
func TestForeignStatusIsReplaced(t *testing.T) {
	t.Parallel()
	raw := status.Error(codes.Internal, `ERROR: relation "accounts" does not exist (SQLSTATE 42P01)`)
	st, replaced := PublicStatus(fmt.Errorf("read: %w", raw))
	if !replaced || st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Errorf("foreign status = %s %q replaced %v", st.Code(), st.Message(), replaced)
	}
	for c, want := range map[codes.Code]Code{codes.Unknown: Internal, codes.DataLoss: Internal, codes.Unimplemented: NotFound, codes.DeadlineExceeded: Unavailable} {
		if got := FromStatus(ToStatus(status.Error(c, "x"))).Code; got != want {
			t.Errorf("%s reads as %s, want %s", c, got, want)
		}
	}
	marked := ToStatus(E(Declined, "Do Not Honor")).Err()
	if st, replaced := PublicStatus(fmt.Errorf("pay: %w", marked)); replaced || st.Message() != "Do Not Honor" || FromStatus(st).Code != Declined {
		t.Errorf("marked status = %s %q replaced %v", st.Code(), st.Message(), replaced)
	}
}
