package app_test

import (
	"testing"
	"time"

	"github.com/hangar/hangar/services/notifications/internal/adapters"
	napp "github.com/hangar/hangar/services/notifications/internal/app"
)

// The send lease outlasts the longest live send (so no second sender takes a message a
// live one is sending) and is short: a message whose sender died mid-send goes again
// within a minute (it used to wait 2 minutes).
func TestSendLeaseOutlastsASendAndIsShort(t *testing.T) {
	t.Parallel()
	for _, timeout := range []time.Duration{0, 5 * time.Second, 20 * time.Second} {
		m, err := adapters.NewSMTP(adapters.SMTPConfig{Addr: "127.0.0.1:25", Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		want := timeout
		if want == 0 {
			want = adapters.DefaultSMTPTimeout
		}
		if m.MaxSendTime() != 2*want {
			t.Errorf("timeout %v: MaxSendTime %v, want both phases (%v)", timeout, m.MaxSendTime(), 2*want)
		}
		if lease := napp.LeaseFor(m.MaxSendTime()); lease <= m.MaxSendTime() {
			t.Errorf("timeout %v: lease %v does not outlast a send (%v)", timeout, lease, m.MaxSendTime())
		}
	}
	m, _ := adapters.NewSMTP(adapters.SMTPConfig{Addr: "127.0.0.1:25"})
	if lease := napp.LeaseFor(m.MaxSendTime()); lease > time.Minute {
		t.Errorf("default lease %v: a crashed sender's mail waits that long", lease)
	}
}
