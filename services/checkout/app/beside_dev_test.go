package app_test

import (
	"net"
	"testing"
)

// The suite passes beside a running make dev (issue 43): with the dev stack's edge and
// card-fields ports taken, a stack of every service a purchase needs still starts and
// takes an order, because every listener of a test binds port 0. payments' card-fields
// origin bound :8081 in tests once, so two of them failed whenever make dev ran.
func TestStackRunsBesideMakeDev(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{":8080", ":8081"} {
		// Taken here, or already taken by a running make dev: the same for the test.
		if ln, err := net.Listen("tcp", addr); err == nil {
			t.Cleanup(func() { ln.Close() })
		}
	}
	st := startStack(t, nil)
	code, m, _ := submitRaw(t, st.base, "beside-dev", quoted(t, st.base, newBuyer("beside-dev"), st.tokenize(t, "4111111111111111"), ""), "")
	if code != 200 || m["invoiceId"] == nil {
		t.Errorf("submit beside make dev: %d %v", code, m)
	}
}
