package server

import (
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	// Every service's contract, so its request types are registered. A new service adds
	// its package here.
	_ "github.com/hangar/hangar/gen/go/hangar/allocation/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	_ "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/errs"
)

// publicRequests answers every request message of the services' contracts
// (hangar.<service>.v1.*Request), sorted by name so a corpus entry's index is stable.
func publicRequests() []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		pkg := string(fd.Package())
		if !strings.HasPrefix(pkg, "hangar.") || strings.HasPrefix(pkg, "hangar.events.") {
			return true
		}
		msgs := fd.Messages()
		for i := range msgs.Len() {
			if strings.HasSuffix(string(msgs.Get(i).Name()), "Request") {
				out = append(out, msgs.Get(i))
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].FullName() < out[j].FullName() })
	return out
}

// FuzzDecodeRequest runs a public request body through what the platform does with it
// before a handler sees it: the input guard, then the gateway's JSON decoding into the
// request type, then the error mapping. Whatever the bytes, the answer is a 4xx in the one
// shape without parser words, or a message that marshals for the gRPC hop (no 500
// 'error while marshaling') and holds no NUL or invalid UTF-8 for the database.
// `go test` runs the seeds and the committed corpus (testdata/fuzz); fuzzing itself is
// manual: go test -fuzz FuzzDecodeRequest ./internal/platform/server
func FuzzDecodeRequest(f *testing.F) {
	types := publicRequests()
	if len(types) < 20 {
		f.Fatalf("only %d public request types registered", len(types))
	}
	for i := range types {
		f.Add(uint16(i), []byte(`{}`))
	}
	for _, seed := range []string{`{"username":"a\u0000b"}`, "{\"email\":\"\xff\"}", `{"isEu":"yes"}`, `{"quantity":2147483648}`,
		`{"quantity":"12"}`, `[1]`, `{"a":`, `{"addOns":[1,{}]}`, `{"currency":null}`, `{"x":1e999}`, `"\ud800"`} {
		for i := range types {
			f.Add(uint16(i), []byte(seed))
		}
	}
	um := protojson.UnmarshalOptions{DiscardUnknown: false}
	f.Fuzz(func(t *testing.T, which uint16, body []byte) {
		md := types[int(which)%len(types)]
		if err := checkBody(DefaultLimits, "application/json", body); err != nil {
			expectClientError(t, md, body, err)
			return
		}
		msg := dynamicpb.NewMessage(md)
		if err := um.Unmarshal(body, msg); err != nil {
			expectClientError(t, md, body, ExplainDecodeError(err.Error()))
			return
		}
		if _, err := proto.Marshal(msg); err != nil {
			t.Fatalf("%s: %q decoded but does not marshal for the gRPC hop: %v", md.FullName(), body, err)
		}
		if bad := badString(msg); bad != "" {
			t.Fatalf("%s: %q decoded with a bad string in %s", md.FullName(), body, bad)
		}
	})
}

func expectClientError(t *testing.T, md protoreflect.MessageDescriptor, body []byte, err error) {
	t.Helper()
	st := errs.ToStatus(err)
	if code := errs.HTTPStatus(errs.FromStatus(st).Code); code < 400 || code >= 500 || st.Code() != codes.InvalidArgument {
		t.Fatalf("%s: %q answered %d (%v), want 400", md.FullName(), body, code, err)
	}
	b := errs.BodyOf(st)
	for _, leak := range []string{"proto:", "strconv", "invalid character", "syntax error"} {
		if strings.Contains(b.Message, leak) {
			t.Fatalf("%s: %q: message shows parser words: %q", md.FullName(), body, b.Message)
		}
	}
	if len(b.FieldErrors) == 0 {
		t.Fatalf("%s: %q: 400 names no field: %q", md.FullName(), body, b.Message)
	}
}

// badString finds a string field holding NUL or invalid UTF-8 (answers its name).
func badString(m protoreflect.Message) string {
	bad := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		check := func(v protoreflect.Value) {
			switch {
			case fd.Kind() == protoreflect.StringKind:
				if s := v.String(); !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
					bad = string(fd.Name())
				}
			case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
				if b := badString(v.Message()); b != "" {
					bad = string(fd.Name()) + "." + b
				}
			}
		}
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				check(v.List().Get(i))
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if s := k.String(); !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
					bad = string(fd.Name())
				}
				if fd.MapValue().Kind() == protoreflect.StringKind || fd.MapValue().Kind() == protoreflect.MessageKind {
					if fd.MapValue().Kind() == protoreflect.StringKind {
						if s := mv.String(); !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
							bad = string(fd.Name())
						}
					} else if b := badString(mv.Message()); b != "" {
						bad = string(fd.Name()) + "." + b
					}
				}
				return bad == ""
			})
		default:
			check(v)
		}
		return bad == ""
	})
	return bad
}
