package app

import (
	"testing"
	"time"
)

// A failed send waits between half and all of the doubling delay, never more than
// MaxBackoff, whatever the attempt: with NOTIFICATIONS_SEND_ATTEMPTS above 33 the shifted
// delay (2 s << attempts) overflowed, turned negative, and the jitter's rand.N panicked.
func TestRetryDelayDoublesWithinItsCap(t *testing.T) {
	t.Parallel()
	p := SenderPolicy{BaseBackoff: 2 * time.Second, MaxBackoff: 15 * time.Minute}
	for attempts := 1; attempts <= 80; attempts++ {
		full := p.MaxBackoff
		if attempts <= 9 { // 2 s · 2^8 = 512 s, below the cap; 2^9 s is above it
			full = p.BaseBackoff << (attempts - 1)
		}
		for range 20 {
			if d := retryDelay(p, attempts); d < full/2 || d > full {
				t.Fatalf("attempt %d: %v, want within [%v, %v]", attempts, d, full/2, full)
			}
		}
	}
}
