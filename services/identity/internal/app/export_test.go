package app

import (
	"context"
	"time"
)

// SetVerifying installs the seam that runs while a login's password is checked with its
// work area held.
func SetVerifying(s *Service, f func(ip string)) { s.verifying = f }

// HashWaiting answers how many logins wait for a work area.
func HashWaiting(s *Service) int { return s.hashes.Waiting() }

// SetResetPause replaces the wait that pads an unknown e-mail's reset request.
func SetResetPause(s *Service, f func(ctx context.Context, d time.Duration) error) {
	s.resetTiming.pause = f
}
