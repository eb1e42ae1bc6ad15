package adapters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// VIES answers registered, not registered, and an outage as an error (never as "not
// registered"); Greece is asked as EL; an answer is kept, an outage is not.
func TestVIESRegistered(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/rest-api/ms/DE/vat/123456789", "/rest-api/ms/EL/vat/123456789":
			_, _ = w.Write([]byte(`{"isValid":true,"userError":"VALID","name":"Luft GmbH"}`))
		case "/rest-api/ms/DE/vat/999999999":
			_, _ = w.Write([]byte(`{"isValid":false,"userError":"INVALID"}`))
		case "/rest-api/ms/FR/vat/XX123456789":
			_, _ = w.Write([]byte(`{"isValid":false,"userError":"MS_UNAVAILABLE"}`))
		default:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	v := NewVIES(srv.URL+"/rest-api/", 2*time.Second)
	ctx := context.Background()
	for _, tc := range []struct {
		country, number string
		registered, err bool
	}{
		{"DE", "123456789", true, false},
		{"GR", "123456789", true, false},
		{"DE", "999999999", false, false},
		{"FR", "XX123456789", false, true},
		{"IT", "12345678901", false, true},
	} {
		ok, err := v.Registered(ctx, tc.country, tc.number)
		if ok != tc.registered || (err != nil) != tc.err {
			t.Errorf("%s %s: registered %v, err %v; want %v, error %v", tc.country, tc.number, ok, err, tc.registered, tc.err)
		}
	}
	n := calls.Load()
	if ok, err := v.Registered(ctx, "DE", "123456789"); !ok || err != nil || calls.Load() != n {
		t.Errorf("a kept answer: %v %v, %d more calls", ok, err, calls.Load()-n)
	}
	if _, err := v.Registered(ctx, "FR", "XX123456789"); err == nil || calls.Load() != n+1 {
		t.Errorf("an outage is asked again: err %v, %d more calls", err, calls.Load()-n)
	}
}
