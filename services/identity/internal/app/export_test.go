package app

// SetVerifying installs the seam that runs while a login's password is checked with its
// hashing slot held.
func SetVerifying(s *Service, f func(ip string)) { s.verifying = f }

// HashWaiting answers how many logins wait for a hashing slot.
func HashWaiting(s *Service) int { return int(s.hashing.Load()) }
