// Package errs is the one error model of every Hangar service: a small code set, a human
// message safe to show, optional field errors, and an internal cause that is logged but
// never sent to a client. Transports map a code once: to a gRPC status here, and to an
// HTTP status and JSON body in the gateway's error handler.
package errs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Code classifies an error for clients. Keep the set small: a finer distinction a client
// acts on is a Reason within a code.
type Code string

const (
	Invalid          Code = "invalid_argument"    // the request is malformed or breaks a rule
	NotFound         Code = "not_found"           // the named thing does not exist
	Conflict         Code = "conflict"            // the request conflicts with current state
	Unauthorized     Code = "unauthenticated"     // no valid credentials
	Forbidden        Code = "permission_denied"   // credentials valid, action not allowed
	Exhausted        Code = "resource_exhausted"  // throttled
	Unavailable      Code = "unavailable"         // a dependency is down; retry later
	Internal         Code = "internal"            // a bug or an unexpected failure
	Precondition     Code = "failed_precondition" // the state does not allow this now
	Declined         Code = "payment_declined"    // the payment processor refused the payment
	MethodNotAllowed Code = "method_not_allowed"  // the route exists, not for this HTTP method
	TooLarge         Code = "payload_too_large"   // the request body is over the limit
)

// FieldError is a message about one input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a classified error. Message is shown to clients; Cause is only logged.
// RetryAfter, on a throttled (Exhausted) or Unavailable error, says when a retry may
// succeed; it becomes the HTTP Retry-After header.
//
// Reason, Errors, RequireLogin and Preview carry what the store's pages need beyond the
// code and message (the spec's refusal answers); they travel through gRPC as status
// details and are written into the one HTTP error body by BodyOf.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// Reason names the refusal more finely than Code, in UPPER_SNAKE_CASE (QUOTE_CHANGED,
	// PAYMENT_DECLINED), for clients that act on it; empty when the code says it all.
	Reason string
	// Errors lists every problem of a refusal that found several (the "errors" the pages
	// show under "Please correct the following:"); empty means the field messages, or
	// Message alone.
	Errors []string
	// RequireLogin asks the page to open its login modal (spec 000 §4 Login).
	RequireLogin bool
	// Preview is the fresh preview a client needs to continue after a changed quote or a
	// refused submit.
	Preview    proto.Message
	Cause      error
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// E builds an error with a code and a client-safe message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Field builds an Invalid error about one field; the message is also the error's message.
func Field(field, message string) *Error {
	return &Error{Code: Invalid, Message: message, Fields: []FieldError{{Field: field, Message: message}}}
}

// Wrap classifies an internal failure: clients see only message, logs see cause.
func Wrap(code Code, cause error, message string) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// Throttled builds an Exhausted error with the time to wait before retrying.
func Throttled(wait time.Duration, format string, args ...any) *Error {
	return &Error{Code: Exhausted, Message: fmt.Sprintf(format, args...), RetryAfter: wait}
}

// CodeOf answers the code of err: the code of the first *Error in its chain; Unavailable
// for context cancellation/deadline and for a dependency that cannot be reached (a network
// error, e.g. PostgreSQL refusing connections), so every service answers an outage with the
// same retryable 503; Internal otherwise.
func CodeOf(err error) Code {
	var e *Error
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		if e.Code == Internal && e.Cause != nil && isUnreachable(e.Cause) {
			return Unavailable // as PublicStatus answers it
		}
		return e.Code
	case wrappedStatus(err) != nil:
		return FromStatus(wrappedStatus(err)).Code
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Unavailable
	case errors.As(err, &ne), isUnreachable(err):
		return Unavailable
	default:
		return Internal
	}
}

// isUnreachable recognises a database or peer that cannot be reached without importing the
// drivers: pgx's connect errors and pool-closed errors say so through these methods, and a
// server that ends the session in the middle of a request (PostgreSQL shutting down,
// crashing or terminating the backend: FATAL 57P01 on a query under way) through its
// SQLSTATE.
func isUnreachable(err error) bool {
	var safe interface{ SafeToRetry() bool }
	if errors.As(err, &safe) && safe.SafeToRetry() {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) && lostServer(state.SQLState()) {
		return true
	}
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}

// lostServer: SQLSTATEs of a database that is going away or cannot take the session
// (class 08 connection exception; 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
// cannot_connect_now; 53300 too_many_connections), not of a statement that is wrong.
func lostServer(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(code, "08")
}

// outageRetry is the Retry-After of an outage the error itself names no wait for.
const outageRetry = time.Second

// RetryAfterOf answers the wait an error asks for (zero when it names none).
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// transport is the one mapping of a code: the gRPC code and the HTTP status it is answered
// with. Codes that share a gRPC code (Declined and Precondition, MethodNotAllowed and a
// missing method) are told apart by the status's ErrorInfo, which carries the code.
type transport struct {
	grpc codes.Code
	http int
}

var transports = map[Code]transport{
	Invalid:          {codes.InvalidArgument, http.StatusBadRequest},
	NotFound:         {codes.NotFound, http.StatusNotFound},
	Conflict:         {codes.Aborted, http.StatusConflict},
	Unauthorized:     {codes.Unauthenticated, http.StatusUnauthorized},
	Forbidden:        {codes.PermissionDenied, http.StatusForbidden},
	Exhausted:        {codes.ResourceExhausted, http.StatusTooManyRequests},
	Unavailable:      {codes.Unavailable, http.StatusServiceUnavailable},
	Internal:         {codes.Internal, http.StatusInternalServerError},
	Precondition:     {codes.FailedPrecondition, http.StatusPreconditionFailed},
	Declined:         {codes.FailedPrecondition, http.StatusPaymentRequired},
	MethodNotAllowed: {codes.Unimplemented, http.StatusMethodNotAllowed},
	TooLarge:         {codes.ResourceExhausted, http.StatusRequestEntityTooLarge},
}

// Codes answers every code, in no particular order: the published error object documents
// exactly these (the contract test compares them).
func Codes() []Code {
	out := make([]Code, 0, len(transports))
	for c := range transports {
		out = append(out, c)
	}
	return out
}

// codeOfGRPC reads a gRPC code that carries no ErrorInfo (a status made outside Hangar's
// handlers: a client library, the gateway, another system).
var codeOfGRPC = map[codes.Code]Code{
	codes.InvalidArgument:    Invalid,
	codes.OutOfRange:         Invalid,
	codes.NotFound:           NotFound,
	codes.Unimplemented:      NotFound, // no such method: no such route
	codes.Aborted:            Conflict,
	codes.AlreadyExists:      Conflict,
	codes.Unauthenticated:    Unauthorized,
	codes.PermissionDenied:   Forbidden,
	codes.ResourceExhausted:  Exhausted,
	codes.Unavailable:        Unavailable,
	codes.DeadlineExceeded:   Unavailable,
	codes.Canceled:           Unavailable,
	codes.FailedPrecondition: Precondition,
}

// HTTPStatus is the HTTP status of code (500 for a code outside the set).
func HTTPStatus(code Code) int {
	if t, ok := transports[code]; ok {
		return t.http
	}
	return http.StatusInternalServerError
}

// GRPCCode is the gRPC code of code (Internal for a code outside the set).
func GRPCCode(code Code) codes.Code {
	if t, ok := transports[code]; ok {
		return t.grpc
	}
	return codes.Internal
}

// FromGRPCCode maps a bare gRPC code back to ours (a status without Hangar's ErrorInfo).
func FromGRPCCode(c codes.Code) Code {
	if k, ok := codeOfGRPC[c]; ok {
		return k
	}
	return Internal
}

// domain names Hangar in the ErrorInfo of every status its handlers answer.
const domain = "hangar"

// ToStatus is err as a gRPC caller may see it, the one conversion of every transport (the
// server's interceptor, the HTTP handlers outside the gateway):
//   - an *Error (anywhere in the chain) keeps its code, message and details, never its
//     cause: a cause that is a downstream's status would otherwise quote the whole chain
//     ("…: rpc error: code = … desc = …");
//   - a status made by a Hangar handler (a downstream's answer passed on, wrapped or not)
//     is kept as it is;
//   - any other status (a client library's "connection error: desc = transport: …", a
//     bare status.Error with driver text) keeps its code and retry hint but says only the
//     code's public message;
//   - anything else says its code's public message.
//
// Every status it answers carries the ErrorInfo naming its code (IsMarked).
func ToStatus(err error) *status.Status {
	st, _ := PublicStatus(err)
	return st
}

// PublicStatus is ToStatus, also reporting whether err's own words were replaced (they
// belong in the log).
func PublicStatus(err error) (st *status.Status, replaced bool) {
	if err == nil {
		return status.New(codes.OK, ""), false
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Code == Internal && e.Cause != nil && isUnreachable(e.Cause) {
			// "could not be saved" because the database went away is an outage, not a
			// bug: the client retries (its message is the code's public one).
			return outage(0), true
		}
		return e.status(), false
	}
	if ws := wrappedStatus(err); ws != nil {
		if IsMarked(ws) {
			return ws, false
		}
		from := FromStatus(ws)
		if from.Code == Unavailable {
			return outage(from.RetryAfter), true
		}
		pub := &Error{Code: from.Code, Message: PublicMessage(from.Code), RetryAfter: from.RetryAfter}
		return pub.status(), true
	}
	code := CodeOf(err)
	if code == Unavailable {
		return outage(0), true
	}
	return (&Error{Code: code, Message: PublicMessage(code)}).status(), true
}

// outage is the one answer of a dependency that cannot be reached: 503, the public
// message, and a Retry-After (wait, else outageRetry).
func outage(wait time.Duration) *status.Status {
	if wait <= 0 {
		wait = outageRetry
	}
	return (&Error{Code: Unavailable, Message: PublicMessage(Unavailable), RetryAfter: wait}).status()
}

func (e *Error) status() *status.Status {
	code := e.Code
	if _, ok := transports[code]; !ok {
		code = Internal
	}
	st := status.New(GRPCCode(code), e.Message)
	info := &errdetails.ErrorInfo{Domain: domain, Reason: reasonOf(code, e.Reason), Metadata: map[string]string{"code": string(code)}}
	if e.RequireLogin {
		info.Metadata["requireLogin"] = "true"
	}
	details := []protoadapt.MessageV1{info}
	if len(e.Fields) > 0 || len(e.Errors) > 0 {
		// Problems of the request as a whole (Errors) are violations without a field.
		br := &errdetails.BadRequest{}
		for _, f := range e.Fields {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: f.Field, Description: f.Message})
		}
		for _, m := range e.Errors {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Description: m})
		}
		details = append(details, br)
	}
	wait := e.RetryAfter
	if wait <= 0 && code == Unavailable {
		// Every 503 says when to ask again (a dependency's "unavailable" named no wait).
		wait = outageRetry
	}
	if wait > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(wait)})
	}
	if e.Preview != nil {
		details = append(details, protoadapt.MessageV1Of(e.Preview))
	}
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		// Only a detail that cannot be marshalled fails: answer the code without it.
		withDetails, _ = status.New(GRPCCode(code), e.Message).WithDetails(info)
	}
	return withDetails
}

// reasonOf is the ErrorInfo reason: the error's own, else its code in UPPER_SNAKE_CASE.
func reasonOf(code Code, reason string) string {
	if reason != "" {
		return reason
	}
	return strings.ToUpper(string(code))
}

// wrappedStatus answers the status err is or wraps (a downstream's answer, with its own
// code, message and details: not the wrapping text), nil when there is none.
func wrappedStatus(err error) *status.Status {
	var gs interface{ GRPCStatus() *status.Status }
	if errors.As(err, &gs) {
		return gs.GRPCStatus()
	}
	return nil
}

// info answers the Hangar ErrorInfo of st, nil when st was not made by a Hangar handler.
func info(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == domain {
			return ei
		}
	}
	return nil
}

// IsMarked reports whether st was made by a Hangar handler (through ToStatus), as opposed
// to one grpc-gateway or a client library raised, whose message may quote internals and
// must be rewritten before a client sees it.
func IsMarked(st *status.Status) bool { return info(st) != nil }

// FromStatus rebuilds an *Error from a gRPC status received from another service (or
// from the gateway's own call): the code from its ErrorInfo when it has one.
func FromStatus(st *status.Status) *Error {
	e := &Error{Code: FromGRPCCode(st.Code()), Message: st.Message()}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() != domain {
				continue
			}
			if c := Code(d.GetMetadata()["code"]); transports[c] != (transport{}) {
				e.Code = c
			}
			e.Reason = d.GetReason()
			e.RequireLogin = d.GetMetadata()["requireLogin"] == "true"
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				if v.GetField() == "" {
					e.Errors = append(e.Errors, v.GetDescription())
				} else {
					e.Fields = append(e.Fields, FieldError{Field: v.GetField(), Message: v.GetDescription()})
				}
			}
		case *errdetails.RetryInfo:
			e.RetryAfter = d.GetRetryDelay().AsDuration()
		case proto.Message:
			// A typed answer beside the error (the fresh preview of a changed quote); other
			// google.rpc details are not answers.
			if d.ProtoReflect().Descriptor().ParentFile().Package() != "google.rpc" {
				e.Preview = d
			}
		}
	}
	return e
}

// PublicMessage is what a client is told of an error of code c whose own message is not
// fit to show.
func PublicMessage(c Code) string {
	switch c {
	case Unavailable:
		return "the service is temporarily unavailable, please retry"
	case Invalid:
		return "the request is not valid"
	case NotFound:
		return "not found"
	case Unauthorized:
		return "Login Required"
	case Forbidden:
		return "You are not authorized."
	case Exhausted:
		return "too many requests, please retry later"
	case Declined:
		return "Your payment was declined."
	case MethodNotAllowed:
		return "method not allowed"
	case TooLarge:
		return "The request body is too large."
	default:
		return "internal error"
	}
}

// Body is the one JSON error shape of every public route. code and message are the error
// object every client reads; status, errors and msg are the same refusal in the shape
// the spec's pages read ({status: "fail", errors} of the checkout calls, {status: "fail",
// msg} of the login form); the rest is there when the error carries it.
type Body struct {
	Code        Code         `json:"code"`
	Message     string       `json:"message"`
	FieldErrors []FieldError `json:"fieldErrors,omitempty"`
	// Reason: the stable name of the refusal in UPPER_SNAKE_CASE, finer than code where a
	// client acts on it (QUOTE_CHANGED, PAYMENT_DECLINED, IDEMPOTENCY_KEY_REUSED,
	// CURRENCY_NOT_ALLOWED_FOR_ACCOUNT), else the code's own name (NOT_FOUND).
	Reason string `json:"reason"`
	// Status is always "fail".
	Status string `json:"status"`
	// Errors: every problem (the error's list, else the field messages, else message).
	Errors []string `json:"errors"`
	// Msg repeats message (the login form's spec 000 §7 name for it).
	Msg          string `json:"msg"`
	RequireLogin bool   `json:"requireLogin,omitempty"`
	// Preview: the fresh preview (the preview route's answer) on QUOTE_CHANGED and on a
	// refused submit.
	Preview json.RawMessage `json:"preview,omitempty"`
}

// BodyOf builds the JSON error body of a gRPC status: the one place the shape is made.
func BodyOf(st *status.Status) Body {
	e := FromStatus(st)
	b := Body{Code: e.Code, Message: e.Message, FieldErrors: e.Fields, Reason: reasonOf(e.Code, e.Reason), Status: "fail",
		Errors: e.Errors, Msg: e.Message, RequireLogin: e.RequireLogin}
	if len(b.Errors) == 0 {
		for _, f := range e.Fields {
			b.Errors = append(b.Errors, f.Message)
		}
	}
	if len(b.Errors) == 0 {
		b.Errors = []string{e.Message}
	}
	if e.Preview != nil {
		// Written as the preview route writes it: every field, empty ones too.
		if raw, err := (protojson.MarshalOptions{EmitDefaultValues: true}).Marshal(e.Preview); err == nil {
			b.Preview = raw
		}
	}
	return b
}
