// Package errs is the one error model of every Hangar service: a small code set, a human
// message safe to show, optional field errors, and an internal cause that is logged but
// never sent to a client. Transports map a code once: to a gRPC status here, and to an
// HTTP status and JSON body in the gateway's error handler.
package errs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Code classifies an error for clients. Keep the set small.
type Code string

const (
	Invalid      Code = "invalid_argument"    // the request is malformed or breaks a rule
	NotFound     Code = "not_found"           // the named thing does not exist
	Conflict     Code = "conflict"            // the request conflicts with current state
	Unauthorized Code = "unauthenticated"     // no valid credentials
	Forbidden    Code = "permission_denied"   // credentials valid, action not allowed
	Exhausted    Code = "resource_exhausted"  // throttled
	Unavailable  Code = "unavailable"         // a dependency is down; retry later
	Internal     Code = "internal"            // a bug or an unexpected failure
	Precondition Code = "failed_precondition" // the state does not allow this now
)

// FieldError is a message about one input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a classified error. Message is shown to clients; Cause is only logged.
// RetryAfter, on a throttled (Exhausted) or Unavailable error, says when a retry may
// succeed; it becomes the HTTP Retry-After header.
type Error struct {
	Code       Code
	Message    string
	Fields     []FieldError
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
		return e.Code
	case wrappedStatus(err) != nil:
		return FromGRPCCode(wrappedStatus(err).Code())
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Unavailable
	case errors.As(err, &ne), isUnreachable(err):
		return Unavailable
	default:
		return Internal
	}
}

// isUnreachable recognises a database or peer that cannot be reached without importing the
// drivers: pgx's connect errors and pool-closed errors say so through these methods.
func isUnreachable(err error) bool {
	var safe interface{ SafeToRetry() bool }
	if errors.As(err, &safe) && safe.SafeToRetry() {
		return true
	}
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}

// RetryAfterOf answers the wait an error asks for (zero when it names none).
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

var grpcCodes = map[Code]codes.Code{
	Invalid:      codes.InvalidArgument,
	NotFound:     codes.NotFound,
	Conflict:     codes.Aborted,
	Unauthorized: codes.Unauthenticated,
	Forbidden:    codes.PermissionDenied,
	Exhausted:    codes.ResourceExhausted,
	Unavailable:  codes.Unavailable,
	Internal:     codes.Internal,
	Precondition: codes.FailedPrecondition,
}

var httpStatus = map[codes.Code]int{
	codes.OK:                 http.StatusOK,
	codes.InvalidArgument:    http.StatusBadRequest,
	codes.OutOfRange:         http.StatusBadRequest,
	codes.NotFound:           http.StatusNotFound,
	codes.Aborted:            http.StatusConflict,
	codes.AlreadyExists:      http.StatusConflict,
	codes.Unauthenticated:    http.StatusUnauthorized,
	codes.PermissionDenied:   http.StatusForbidden,
	codes.ResourceExhausted:  http.StatusTooManyRequests,
	codes.Unavailable:        http.StatusServiceUnavailable,
	codes.DeadlineExceeded:   http.StatusGatewayTimeout,
	codes.Canceled:           499,
	codes.FailedPrecondition: http.StatusPreconditionFailed,
	codes.Unimplemented:      http.StatusNotImplemented,
}

var codeOfGRPC = func() map[codes.Code]Code {
	m := make(map[codes.Code]Code, len(grpcCodes))
	for k, v := range grpcCodes {
		m[v] = k
	}
	m[codes.OutOfRange] = Invalid
	m[codes.AlreadyExists] = Conflict
	m[codes.DeadlineExceeded] = Unavailable
	m[codes.Canceled] = Unavailable
	return m
}()

// HTTPStatus maps a gRPC code to the HTTP status clients see.
func HTTPStatus(c codes.Code) int {
	if s, ok := httpStatus[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// FromGRPCCode maps a gRPC code back to ours (for errors received from another service).
func FromGRPCCode(c codes.Code) Code {
	if k, ok := codeOfGRPC[c]; ok {
		return k
	}
	return Internal
}

// ToStatus converts err to a gRPC status. Internal causes are not included; messages of
// unclassified errors are replaced, so nothing internal leaks to a caller.
//
// An *Error decides even when it wraps another service's status (a remote error passed
// on with its cause): the status of a wrapped error carries the whole chain's text as its
// message ("...: rpc error: code = ... desc = ..."), which the client must not see.
func ToStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	// An *Error first: its message is the one chosen for clients, even when its cause is a
	// downstream's status. status.FromError would answer that status with the whole chain's
	// Error() text as its message ("…: rpc error: code = … desc = …").
	var e *Error
	if !errors.As(err, &e) {
		if st := wrappedStatus(err); st != nil {
			return st
		}
		code := CodeOf(err)
		return status.New(grpcCodes[code], PublicMessage(code))
	}
	st := status.New(grpcCodes[e.Code], e.Message)
	if len(e.Fields) > 0 {
		br := &errdetails.BadRequest{}
		for _, f := range e.Fields {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: f.Field, Description: f.Message})
		}
		if withDetails, derr := st.WithDetails(br); derr == nil {
			st = withDetails
		}
	}
	if e.RetryAfter > 0 {
		if withDetails, derr := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(e.RetryAfter)}); derr == nil {
			st = withDetails
		}
	}
	return st
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

// origin marks a status as made by a Hangar handler (through ToStatus in the server's
// error interceptor), as opposed to one grpc-gateway raised itself while decoding a
// request, whose message quotes parser internals and must be rewritten before a client
// sees it.
var origin = &errdetails.ErrorInfo{Domain: "hangar", Reason: "HANDLER"}

// Mark answers st marked as a handler's answer.
func Mark(st *status.Status) *status.Status {
	if IsMarked(st) {
		return st
	}
	if m, err := st.WithDetails(origin); err == nil {
		return m
	}
	return st
}

// IsMarked reports whether st was made by a Hangar handler (see Mark).
func IsMarked(st *status.Status) bool {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetDomain() == origin.Domain && ei.GetReason() == origin.Reason {
			return true
		}
	}
	return false
}

// FromStatus rebuilds an *Error from a gRPC status received from another service.
func FromStatus(st *status.Status) *Error {
	e := &Error{Code: FromGRPCCode(st.Code()), Message: st.Message()}
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.Fields = append(e.Fields, FieldError{Field: v.GetField(), Message: v.GetDescription()})
			}
		case *errdetails.RetryInfo:
			e.RetryAfter = d.GetRetryDelay().AsDuration()
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
	default:
		return "internal error"
	}
}

// Body is the one JSON error shape of every public route.
type Body struct {
	Code        Code         `json:"code"`
	Message     string       `json:"message"`
	FieldErrors []FieldError `json:"fieldErrors,omitempty"`
}

// BodyOf builds the JSON error body of a gRPC status.
func BodyOf(st *status.Status) Body {
	e := FromStatus(st)
	if st.Code() == codes.Unimplemented {
		e.Code = NotFound
	}
	return Body{Code: e.Code, Message: e.Message, FieldErrors: e.Fields}
}
