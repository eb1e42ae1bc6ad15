package domain

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"
)

// SessionPolicy bounds a session's life.
type SessionPolicy struct {
	Idle     time.Duration // ends after this long without use
	Absolute time.Duration // ends this long after login, used or not
	Touch    time.Duration // last use is written at most this often (write throttling)
}

// DefaultSessionPolicy: 30 minutes idle, 12 hours absolute, last use written once a minute.
var DefaultSessionPolicy = SessionPolicy{Idle: 30 * time.Minute, Absolute: 12 * time.Hour, Touch: time.Minute}

// Session is a stored session. Only the token's hash is stored.
type Session struct {
	ID          string
	AccountUUID string
	CreatedAt   time.Time
	LastSeenAt  time.Time
	ExpiresAt   time.Time // absolute expiry
	RevokedAt   time.Time // zero: not revoked
}

// Active reports whether the session may be used at now.
func (s Session) Active(now time.Time, p SessionPolicy) bool {
	return s.RevokedAt.IsZero() && now.Before(s.ExpiresAt) && now.Before(s.LastSeenAt.Add(p.Idle))
}

// NeedsTouch reports whether using the session at now should write its last use.
func (s Session) NeedsTouch(now time.Time, p SessionPolicy) bool {
	return now.Sub(s.LastSeenAt) >= p.Touch
}

// NewToken answers a fresh opaque session token (32 random bytes, URL-safe base64) and
// the hash it is stored and looked up by.
func NewToken() (token string, hash []byte, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("read session token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken is the stored form of a token. A token is 256 random bits, so a plain SHA-256
// is enough: a database dump does not yield usable cookies.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// PlausibleToken rejects values that cannot be a token without a database round trip.
func PlausibleToken(token string) bool {
	if len(token) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}
