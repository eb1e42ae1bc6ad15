package server

import (
	"context"
	"encoding/json"
	"net/http"

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

func writeStatus(w http.ResponseWriter, st *status.Status) {
	body := errs.BodyOf(st)
	code := errs.HTTPStatus(st.Code())
	if st.Code() == codes.Unimplemented {
		code = http.StatusNotFound
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) gatewayError(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st, ok := status.FromError(err)
	if !ok {
		// Errors raised by the gateway itself (bad query parameter, bad body) are the client's.
		st = status.New(codes.InvalidArgument, err.Error())
	}
	if st.Code() == codes.Unknown {
		s.deps.Logger.ErrorContext(ctx, "gateway error", "path", r.URL.Path, "err", err.Error())
		st = status.New(codes.Internal, "internal error")
	}
	writeStatus(w, st)
}

func (s *Server) routingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	switch httpStatus {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_ = json.NewEncoder(w).Encode(errs.Body{Code: errs.Invalid, Message: "method " + r.Method + " not allowed on " + r.URL.Path})
	default:
		writeStatus(w, status.New(codes.NotFound, "no route for "+r.URL.Path))
	}
}
