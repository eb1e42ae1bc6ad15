package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// DeviceCookieAge is how long a device cookie lasts after the login that set it.
const DeviceCookieAge = 180 * 24 * time.Hour

// DeviceCookies signs and checks device cookies (OWASP "Slow down online guessing attacks
// with device cookies"): a browser that logged in to an account gets a cookie naming the
// account, signed by the store. A login that presents the cookie of its e-mail is
// throttled by that device's own attempts only (Throttle.PerDevice), never by attempts
// from elsewhere, so nobody can lock the owner out by flooding the account or the login.
// The value is a random device id and an HMAC-SHA-256 over it and the e-mail, so it
// neither shows the e-mail nor can be made for another account.
type DeviceCookies struct{ key []byte }

// NewDeviceCookies signs with key.
func NewDeviceCookies(key []byte) DeviceCookies { return DeviceCookies{key: key} }

// Issue answers a new cookie value for a login of email.
func (d DeviceCookies) Issue(email string) (string, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("device id: %w", err)
	}
	b64 := base64.RawURLEncoding
	return b64.EncodeToString(id[:]) + "." + b64.EncodeToString(d.mac(id[:], email)), nil
}

// Check answers the device id of value when it is a device cookie issued for email.
func (d DeviceCookies) Check(value, email string) (id string, ok bool) {
	if len(d.key) == 0 || len(value) > 128 {
		return "", false
	}
	idPart, macPart, found := strings.Cut(value, ".")
	if !found {
		return "", false
	}
	b64 := base64.RawURLEncoding
	raw, err := b64.DecodeString(idPart)
	if err != nil || len(raw) != 16 {
		return "", false
	}
	mac, err := b64.DecodeString(macPart)
	if err != nil || !hmac.Equal(mac, d.mac(raw, email)) {
		return "", false
	}
	return idPart, true
}

// Zero reports whether d has no key.
func (d DeviceCookies) Zero() bool { return len(d.key) == 0 }

func (d DeviceCookies) mac(id []byte, email string) []byte {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte("hangar-device-cookie\x00"))
	m.Write(id)
	m.Write([]byte(NormalizeEmail(email)))
	return m.Sum(nil)
}
