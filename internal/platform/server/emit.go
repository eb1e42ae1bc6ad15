package server

import (
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// EmitDefaults makes the gateway answer every field of these response messages, empty
// strings and lists included (protojson EmitDefaultValues: message fields and optional
// ones stay as set), where the spec names the fields of an answer and the page reads them
// (spec 000 §7's payment success: extension, mobileDeeplink, googleConversionCodes).
// Every other answer leaves empty fields out. Call it before Run.
func (s *Server) EmitDefaults(msgs ...proto.Message) {
	for _, m := range msgs {
		s.emitDefaults[m.ProtoReflect().Descriptor().FullName()] = true
	}
}

// jsonMarshaler is the gateway's JSON: empty fields left out, except in the answers
// named in full.
type jsonMarshaler struct {
	*runtime.JSONPb
	defaults *runtime.JSONPb
	full     map[protoreflect.FullName]bool // read only once the gateway serves
}

func newJSONMarshaler(full map[protoreflect.FullName]bool) *jsonMarshaler {
	unmarshal := protojson.UnmarshalOptions{DiscardUnknown: false}
	return &jsonMarshaler{
		JSONPb:   &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: false}, UnmarshalOptions: unmarshal},
		defaults: &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{EmitDefaultValues: true}, UnmarshalOptions: unmarshal},
		full:     full,
	}
}

// Marshal answers a message's protojson bytes as runtime.JSONPb.Marshal does (no Indent is
// set), without its copy of them into a buffer of its own.
func (m *jsonMarshaler) Marshal(v any) ([]byte, error) {
	pm, ok := v.(proto.Message)
	if !ok {
		return m.JSONPb.Marshal(v)
	}
	if m.full[pm.ProtoReflect().Descriptor().FullName()] {
		return m.defaults.MarshalOptions.Marshal(pm)
	}
	return m.JSONPb.MarshalOptions.Marshal(pm)
}
