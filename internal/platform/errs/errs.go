// Package errs is the one error model of every Hangar service: a small code set, a human
// message safe to show, optional field errors, and an internal cause that is logged but
// never sent to a client. Transports map a code once: to a gRPC status here, and to an
// HTTP status and JSON body in the gateway's error handler.
package errs

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	Cause   error
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

// CodeOf answers the code of err: the code of the first *Error in its chain, Unavailable for
// context cancellation/deadline, Internal otherwise.
func CodeOf(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Unavailable
	default:
		return Internal
	}
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
func ToStatus(err error) *status.Status {
	if err == nil {
		return status.New(codes.OK, "")
	}
	if s, ok := status.FromError(err); ok {
		return s
	}
	var e *Error
	if !errors.As(err, &e) {
		code := CodeOf(err)
		return status.New(grpcCodes[code], publicMessage(code))
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
	return st
}

// FromStatus rebuilds an *Error from a gRPC status received from another service.
func FromStatus(st *status.Status) *Error {
	e := &Error{Code: FromGRPCCode(st.Code()), Message: st.Message()}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				e.Fields = append(e.Fields, FieldError{Field: v.GetField(), Message: v.GetDescription()})
			}
		}
	}
	return e
}

func publicMessage(c Code) string {
	switch c {
	case Unavailable:
		return "the service is temporarily unavailable, please retry"
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
