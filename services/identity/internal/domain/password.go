package domain

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"

	argon2in "github.com/hangar/hangar/third_party/argon2"
)

// Argon2Params are the argon2id cost parameters. The defaults follow the OWASP password
// storage recommendation (m=19 MiB, t=2, p=1): about 30-60 ms per hash on one core, so a
// login stays well under 100 ms on two cores while an offline guess costs the same.
// Tests lower them through configuration.
type Argon2Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultArgon2 is the production cost.
var DefaultArgon2 = Argon2Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// Hasher hashes and verifies passwords with argon2id in the PHC string format, so the
// parameters travel with each hash and can be raised without invalidating old ones.
type Hasher struct {
	p     Argon2Params
	dummy string
	took  time.Duration
}

// NewHasher builds a hasher; it precomputes a dummy hash that Verify checks for unknown
// users so a login for a missing account costs the same as one for a real account.
func NewHasher(p Argon2Params) (*Hasher, error) {
	if p.MemoryKiB < 8*uint32(max(p.Threads, 1)) || p.Time < 1 || p.Threads < 1 {
		return nil, fmt.Errorf("argon2id parameters m=%d t=%d p=%d are too low", p.MemoryKiB, p.Time, p.Threads)
	}
	h := &Hasher{p: p}
	start := time.Now()
	d, err := h.Hash("dummy password for unknown users")
	if err != nil {
		return nil, err
	}
	h.dummy, h.took = d, time.Since(start)
	return h, nil
}

// HashTime answers how long the hasher's first hash took: an estimate of a verification's
// time until real ones are measured.
func (h *Hasher) HashTime() time.Duration { return h.took }

// Params answers the hasher's cost parameters.
func (h *Hasher) Params() Argon2Params { return h.p }

// NewMemory allocates a work area for this hasher's hashes (MemoryKiB).
func (h *Hasher) NewMemory() *argon2in.Memory { return argon2in.NewMemory(h.p.MemoryKiB) }

// Hash answers the encoded argon2id hash of password with a fresh salt.
func (h *Hasher) Hash(password string) (string, error) { return h.HashIn(nil, password) }

// HashIn is Hash computed in the work area m (nil: memory of its own).
func (h *Hasher) HashIn(m *argon2in.Memory, password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("read salt: %w", err)
	}
	key := argon2in.IDKeyIn(m, []byte(password), salt, h.p.Time, h.p.MemoryKiB, h.p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.p.MemoryKiB, h.p.Time, h.p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches encoded. An empty encoded hash (unknown user,
// or an account without a password) verifies against the dummy hash and answers false,
// taking the same time as a real check.
func (h *Hasher) Verify(password, encoded string) bool { return h.VerifyIn(nil, password, encoded) }

// VerifyIn is Verify computed in the work area m (nil: memory of its own); a hash whose
// memory parameter is larger than m allocates its own.
func (h *Hasher) VerifyIn(m *argon2in.Memory, password, encoded string) bool {
	if encoded == "" {
		_, _ = verify(m, password, h.dummy)
		return false
	}
	ok, err := verify(m, password, encoded)
	return ok && err == nil
}

var errBadHash = errors.New("malformed argon2id hash")

func verify(m *argon2in.Memory, password, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false, errBadHash
	}
	var p Argon2Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2in.IDKeyIn(m, []byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
