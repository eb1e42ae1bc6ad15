package server

import (
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
)

// The matcher forwards what grpc-gateway's default forwards, under the same metadata key
// (metadata keys are lower case), minus the internal channels.
func TestIncomingHeaderIsTheDefaultMinusInternal(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"Cookie", "cookie", "User-Agent", "Origin", "Referer", "Accept-Language", "Content-Type",
		"Authorization", "Host", "Sec-Fetch-Site", "X-Xsrf-Token", "Accept-Encoding", "Idempotency-Key",
		"Grpc-Metadata-X-Hangar-Session", "X-Hangar-Client-Addr", "Grpc-Metadata-Foo"} {
		got, ok := IncomingHeader(k)
		want, wantOK := runtime.DefaultHeaderMatcher(k)
		if IsInternalHeader(k) {
			wantOK = false
		}
		if ok != wantOK || ok && !strings.EqualFold(got, want) {
			t.Errorf("IncomingHeader(%q) = %q, %v; want %q, %v", k, got, ok, want, wantOK)
		}
	}
	if len(gatewayHeaders) < 10 {
		t.Errorf("only %d precomputed header keys", len(gatewayHeaders))
	}
}
