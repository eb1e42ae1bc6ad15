package ports

import (
	"bytes"
	"io"
	"net/url"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// formMarshaler decodes application/x-www-form-urlencoded bodies (the auto-renew form
// posts isAutoRenew) into the request message and answers JSON. The same pattern as
// identity's eligibility forms.
type formMarshaler struct{ *runtime.JSONPb }

func newFormMarshaler() *formMarshaler {
	return &formMarshaler{JSONPb: &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{EmitUnpopulated: false}}}
}

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
