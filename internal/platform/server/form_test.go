package server

import (
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
)

func TestFormMarshalerDecodesFormsAndJSON(t *testing.T) {
	t.Parallel()
	m := &formMarshaler{JSONPb: &runtime.JSONPb{}}
	for name, body := range map[string]string{
		"form-encoded":               "username=pilot%40demo.hangar.test&password=p+w",
		"JSON sent with a form type": `  {"username":"pilot@demo.hangar.test","password":"p w"}`,
	} {
		t.Run(name, func(t *testing.T) {
			var req identityv1.LoginRequest
			if err := m.NewDecoder(strings.NewReader(body)).Decode(&req); err != nil {
				t.Fatalf("Decode() error = %v", err)
			}
			if req.GetUsername() != "pilot@demo.hangar.test" || req.GetPassword() != "p w" {
				t.Errorf("Decode() = %q/%q, want pilot@demo.hangar.test/\"p w\"", req.GetUsername(), req.GetPassword())
			}
		})
	}
	t.Run("a malformed form is an error", func(t *testing.T) {
		var req identityv1.LoginRequest
		if err := m.NewDecoder(strings.NewReader("username=%zz")).Decode(&req); err == nil {
			t.Error("Decode() of a bad escape: no error")
		}
	})
}
