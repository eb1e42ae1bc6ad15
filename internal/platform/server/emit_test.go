package server

import (
	"encoding/json"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestEmitDefaultsOnlyForRegisteredAnswers(t *testing.T) {
	t.Parallel()
	full := map[protoreflect.FullName]bool{}
	m := newJSONMarshaler(full)
	fields := func() map[string]any {
		b, err := m.Marshal(&healthpb.HealthCheckResponse{})
		var out map[string]any
		if err != nil || json.Unmarshal(b, &out) != nil {
			t.Fatalf("marshal: %s %v", b, err)
		}
		return out
	}
	// An unregistered answer leaves its empty fields out, as every answer did before.
	if got := fields(); len(got) != 0 {
		t.Fatalf("unregistered: %v, want {}", got)
	}
	(&Server{emitDefaults: full}).EmitDefaults(&healthpb.HealthCheckResponse{})
	if got := fields(); got["status"] != "UNKNOWN" {
		t.Errorf("registered: %v, want the empty field named", got)
	}
}

// The gateway's JSON is byte for byte what runtime.JSONPb writes with the same options.
func TestJSONMarshalerWritesWhatJSONPbWrites(t *testing.T) {
	t.Parallel()
	full := map[protoreflect.FullName]bool{}
	m := newJSONMarshaler(full)
	(&Server{emitDefaults: full}).EmitDefaults(&healthpb.HealthCheckResponse{})
	for _, v := range []any{
		&healthpb.HealthCheckResponse{}, &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING},
		&healthpb.HealthCheckRequest{}, &healthpb.HealthCheckRequest{Service: "a\u2028\"<b>é"},
		(*healthpb.HealthCheckRequest)(nil), map[string]int{"a": 1}, "text",
	} {
		ref := m.JSONPb
		if pm, ok := v.(interface{ ProtoReflect() protoreflect.Message }); ok && full[pm.ProtoReflect().Descriptor().FullName()] {
			ref = m.defaults
		}
		want, werr := ref.Marshal(v)
		got, err := m.Marshal(v)
		if string(got) != string(want) || (err == nil) != (werr == nil) {
			t.Errorf("Marshal(%#v) = %q, %v; JSONPb: %q, %v", v, got, err, want, werr)
		}
	}
}
