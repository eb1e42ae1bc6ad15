package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hangar/hangar/internal/platform/errs"
)

// WriteError writes err in the one JSON error shape with the mapped HTTP status.
// Handlers outside the gateway use it so every route fails the same way.
func WriteError(w http.ResponseWriter, err error) {
	writeStatus(w, errs.ToStatus(err))
}

// writeStatus is the one HTTP answer of a failure: the status of its errs code, the body
// errs.BodyOf builds, Retry-After when the error names a wait. Nothing else of the status
// (its gRPC code, metadata) reaches the client.
func writeStatus(w http.ResponseWriter, st *status.Status) {
	body := errs.BodyOf(st)
	wait := errs.FromStatus(st).RetryAfter
	if wait <= 0 && body.Code == errs.Unavailable {
		wait = notReadyRetry // every 503 says when to ask again
	}
	if wait > 0 {
		// Whole seconds, rounded up: a client that waits exactly this long gets through.
		w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(errs.HTTPStatus(body.Code))
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) gatewayError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st, ok := status.FromError(err)
	if !ok || (st.Code() == codes.InvalidArgument && !errs.IsMarked(st)) {
		// Raised by the gateway itself while decoding the request (body, query or path):
		// the client's mistake, told plainly. The parser's own words stay in the log.
		s.deps.Logger.DebugContext(ctx, "request not decoded", "path", r.URL.Path, "err", err.Error())
		writeStatus(w, errs.ToStatus(ExplainDecodeError(err.Error())))
		return
	}
	// A handler's answer is written as it is; anything else (the gateway failing to marshal
	// its call, the loopback connection failing) keeps its class, never the library's words.
	pub, replaced := errs.PublicStatus(err)
	switch {
	case r.Context().Err() != nil:
		// The client left before its answer: nothing failed here (see errorUnary).
		s.deps.Logger.DebugContext(ctx, "request abandoned by its client", "path", r.URL.Path, "err", err.Error())
	case replaced:
		s.deps.Logger.ErrorContext(ctx, "gateway error", "path", r.URL.Path, "err", err.Error())
	}
	writeStatus(w, pub)
}

var (
	reUnknownField = regexp.MustCompile(`unknown field "([^"]{1,100})"`)
	reDupField     = regexp.MustCompile(`duplicate field "([^"]{1,100})"`)
	reBadValue     = regexp.MustCompile(`invalid value for ([a-z0-9]+) field ([A-Za-z0-9_.]{1,100})`)
	reQueryField   = regexp.MustCompile(`parsing field "([A-Za-z0-9_.]{1,100})": (.*)`)
	rePathParam    = regexp.MustCompile(`parameter: ([A-Za-z0-9_.]{1,100}),`)
)

// ExplainDecodeError turns the message of a request the gateway could not decode
// (protojson, strconv, the gateway's own words) into a field error with a plain message.
// It never repeats the parser's text.
func ExplainDecodeError(msg string) *errs.Error {
	if m := reUnknownField.FindStringSubmatch(msg); m != nil {
		return fieldf(m[1], "%s is not a field of this request.", m[1])
	}
	if m := reDupField.FindStringSubmatch(msg); m != nil {
		return fieldf(m[1], "%s is given more than once.", m[1])
	}
	if m := reBadValue.FindStringSubmatch(msg); m != nil {
		return fieldf(m[2], "%s %s.", m[2], kindMessage(m[1], msg))
	}
	if m := reQueryField.FindStringSubmatch(msg); m != nil {
		kind := "string"
		switch {
		case strings.Contains(m[2], "ParseBool"):
			kind = "bool"
		case strings.Contains(m[2], "ParseInt"), strings.Contains(m[2], "ParseUint"):
			kind = "int64"
		case strings.Contains(m[2], "ParseFloat"):
			kind = "double"
		case strings.Contains(m[2], "enum"):
			kind = "enum"
		}
		return fieldf(m[1], "%s %s.", m[1], kindMessage(kind, m[2]))
	}
	if m := rePathParam.FindStringSubmatch(msg); m != nil {
		return fieldf(m[1], "%s is not a valid value.", m[1])
	}
	if strings.Contains(msg, "UTF-8") {
		return errs.Field("body", "The request contains bytes that are not valid UTF-8 text.")
	}
	return errs.Field("body", "The request body is not valid JSON for this request.")
}

func kindMessage(kind, msg string) string {
	switch kind {
	case "bool":
		return "must be true or false"
	case "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64":
		if strings.Contains(msg, "out of range") {
			return "is out of range"
		}
		return "must be a whole number"
	case "float", "double":
		return "must be a number"
	case "enum":
		return "is not one of the allowed values"
	case "string":
		return "must be text"
	case "message", "map", "list":
		return "has the wrong shape"
	}
	return "is not a valid value"
}

func fieldf(field, format string, args ...any) *errs.Error {
	return errs.Field(field, fmt.Sprintf(format, args...))
}

func (s *Server) routingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	if hasBadPath(r) {
		WriteError(w, badPathError(nil))
		return
	}
	switch httpStatus {
	case http.StatusMethodNotAllowed:
		WriteError(w, errs.E(errs.MethodNotAllowed, "method %s not allowed on %s", r.Method, r.URL.Path))
	default:
		WriteError(w, errs.E(errs.NotFound, "no route for %s", r.URL.Path))
	}
}
