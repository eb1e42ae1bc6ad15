package server

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"

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

// NewDecoder decodes request bodies as runtime.JSONPb's decoder does. That decoder scans
// a message's JSON with encoding/json into a copy (json.RawMessage) before protojson reads
// it again; a body that is one JSON value and nothing else (what the guard let through and
// every client sends) goes to protojson as is, the value without the whitespace around it:
// the very bytes the copy held. Any other body, and any other target, goes through
// JSONPb's decoder over the same bytes.
func (m *jsonMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return &jsonDecoder{m: m, r: r}
}

type jsonDecoder struct {
	m    *jsonMarshaler
	r    io.Reader
	done bool            // the one value was decoded: what follows is the end
	next runtime.Decoder // JSONPb's decoder, once the fast path does not apply
}

func (d *jsonDecoder) Decode(v any) error {
	if d.next != nil {
		return d.next.Decode(v)
	}
	if d.done {
		return io.EOF // json.Decoder's answer once only whitespace is left
	}
	target := protoTarget(v)
	if target == nil {
		d.next = d.m.JSONPb.NewDecoder(d.r)
		return d.next.Decode(v)
	}
	body, err := io.ReadAll(d.r)
	if err != nil || !json.Valid(body) {
		rest := io.Reader(bytes.NewReader(body))
		if err != nil {
			rest = io.MultiReader(rest, failingReader{err})
		}
		d.next = d.m.JSONPb.NewDecoder(rest)
		return d.next.Decode(v)
	}
	d.done = true
	return d.m.UnmarshalOptions.Unmarshal(bytes.Trim(body, " \t\r\n"), target())
}

// protoTarget answers how JSONPb's decoder finds the message it decodes into v (v itself,
// or the end of a chain of pointers, allocated on the way), nil when v is none.
func protoTarget(v any) func() proto.Message {
	if pm, ok := v.(proto.Message); ok {
		return func() proto.Message { return pm }
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return nil
	}
	for t := rv.Type(); t.Kind() == reflect.Pointer; t = t.Elem() {
		if t.ConvertibleTo(protoMessageType) {
			return func() proto.Message {
				for {
					if rv.IsNil() {
						rv.Set(reflect.New(rv.Type().Elem()))
					}
					if rv.Type().ConvertibleTo(protoMessageType) {
						return rv.Interface().(proto.Message)
					}
					rv = rv.Elem()
				}
			}
		}
	}
	return nil
}

var protoMessageType = reflect.TypeFor[proto.Message]()

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
