package app

// SetVerifying installs the seam that runs while a login's password is checked with its
// work area held.
func SetVerifying(s *Service, f func(ip string)) { s.verifying = f }

// HashWaiting answers how many logins wait for a work area.
func HashWaiting(s *Service) int { return s.hashes.Waiting() }
