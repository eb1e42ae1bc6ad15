package server

import (
	"sync"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// emitDefaults holds the full names of the answers whose every field is written, empty
// ones too (EmitDefaults).
var emitDefaults sync.Map

// EmitDefaults makes the gateway answer every field of these response messages, empty
// strings and lists included (protojson EmitDefaultValues: message fields and optional
// ones stay as set), where the spec names the fields of an answer and the page reads them
// (spec 000 §7's payment success: extension, mobileDeeplink, googleConversionCodes).
// Every other answer leaves empty fields out.
func EmitDefaults(msgs ...proto.Message) {
	for _, m := range msgs {
		emitDefaults.Store(m.ProtoReflect().Descriptor().FullName(), struct{}{})
	}
}

// jsonMarshaler is the gateway's JSON: empty fields left out, except in the answers
// registered with EmitDefaults.
type jsonMarshaler struct {
	*runtime.JSONPb
	defaults *runtime.JSONPb
}

func newJSONMarshaler() *jsonMarshaler {
	unmarshal := protojson.UnmarshalOptions{DiscardUnknown: false}
	return &jsonMarshaler{
		JSONPb:   &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: false}, UnmarshalOptions: unmarshal},
		defaults: &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{EmitDefaultValues: true}, UnmarshalOptions: unmarshal},
	}
}

func (m *jsonMarshaler) Marshal(v any) ([]byte, error) {
	if pm, ok := v.(proto.Message); ok && emitsDefaults(pm.ProtoReflect().Descriptor().FullName()) {
		return m.defaults.Marshal(v)
	}
	return m.JSONPb.Marshal(v)
}

func emitsDefaults(name protoreflect.FullName) bool {
	_, ok := emitDefaults.Load(name)
	return ok
}
