package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"

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

// The gateway reads a request body into the same message, or fails with the same words,
// as runtime.JSONPb's decoder, whatever the body.
func TestJSONDecoderReadsWhatJSONPbReads(t *testing.T) {
	t.Parallel()
	m := newJSONMarshaler(map[protoreflect.FullName]bool{})
	for _, body := range []string{
		``, `  `, `{}`, ` {"service":"a"} `, "\n{\"service\":\"a\"}\r\n", `{"service":"a"}{"service":"b"}`, `{"service":"a"} x`,
		`{"service":1}`, "\n  {\"service\":1}", `{"nope":1}`, " \n{\n\"nope\":1}", `{"service":"a","service":"b"}`, `{"service":"caf\u00e9"}`, "{\"service\":\"\xff\"}",
		`{"service":`, `[1]`, `"s"`, `null`, `x`, "\v{}", `{"service":"a"}` + "\u00a0",
	} {
		for _, shape := range []string{"message", "pointer", "other"} {
			decode := func(dec runtime.Decoder) (any, string, string) {
				var errs []string
				var got any
				switch shape {
				case "message":
					msg := &healthpb.HealthCheckRequest{}
					errs = append(errs, errText(dec.Decode(msg)), errText(dec.Decode(msg)))
					got = msg
				case "pointer":
					var holder struct{ M *healthpb.HealthCheckRequest }
					errs = append(errs, errText(dec.Decode(&holder.M)), "")
					got = holder.M
				default:
					var out map[string]any
					errs = append(errs, errText(dec.Decode(&out)), errText(dec.Decode(&out)))
					got = out
				}
				return got, errs[0], errs[1]
			}
			got, err1, err2 := decode(m.NewDecoder(strings.NewReader(body)))
			want, werr1, werr2 := decode(m.JSONPb.NewDecoder(strings.NewReader(body)))
			same := fmt.Sprint(got) == fmt.Sprint(want)
			if gm, ok := got.(proto.Message); ok {
				wm, _ := want.(proto.Message)
				same = proto.Equal(gm, wm)
			}
			if !same || err1 != werr1 || err2 != werr2 {
				t.Errorf("%s %q: %v, %q, %q; JSONPb: %v, %q, %q", shape, body, got, err1, err2, want, werr1, werr2)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
