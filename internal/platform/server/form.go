package server

import (
	"bytes"
	"io"
	"net/url"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// FormMarshalerOption lets a gateway route take application/x-www-form-urlencoded bodies
// (the spec's form posts: eligibility forms, the auto-renew toggle) as well as JSON, and
// answer JSON. Form field names are the JSON or proto names of the request message.
func FormMarshalerOption() runtime.ServeMuxOption {
	return runtime.WithMarshalerOption("application/x-www-form-urlencoded", &formMarshaler{JSONPb: &runtime.JSONPb{
		MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: false},
	}})
}

type formMarshaler struct{ *runtime.JSONPb }

func (m *formMarshaler) ContentType(any) string { return "application/json" }

func (m *formMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		msg, ok := v.(proto.Message)
		if !ok {
			return m.JSONPb.NewDecoder(r).Decode(v)
		}
		b, err := io.ReadAll(io.LimitReader(r, 64<<10))
		if err != nil {
			return err
		}
		// Clients that post JSON without a JSON content type (curl -d) still mean JSON.
		if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
			return m.JSONPb.Unmarshal(t, v)
		}
		vals, err := url.ParseQuery(string(b))
		if err != nil {
			return err
		}
		return runtime.PopulateQueryParameters(msg, vals, utilities.NewDoubleArray(nil))
	})
}
