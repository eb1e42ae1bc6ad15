package argon2_test

import (
	"bytes"
	"testing"

	xargon2 "golang.org/x/crypto/argon2"

	"github.com/hangar/hangar/third_party/argon2"
)

// A key derived in a reused work area is the key golang.org/x/crypto derives, also after
// the area held another hash, and with a larger area than the hash needs.
func TestIDKeyInAReusedWorkAreaMatchesIDKey(t *testing.T) {
	m := argon2.NewMemory(256)
	for _, c := range []struct {
		password, salt string
		time, kib      uint32
		threads        uint8
	}{
		{"correct horse", "saltsaltsaltsalt", 2, 256, 1},
		{"another password", "0123456789abcdef", 1, 64, 1},
		{"correct horse", "saltsaltsaltsalt", 2, 256, 1},
		{"more memory than the area", "0123456789abcdef", 1, 512, 2},
	} {
		want := xargon2.IDKey([]byte(c.password), []byte(c.salt), c.time, c.kib, c.threads, 32)
		if got := argon2.IDKeyIn(m, []byte(c.password), []byte(c.salt), c.time, c.kib, c.threads, 32); !bytes.Equal(got, want) {
			t.Errorf("%+v: key %x, want %x", c, got, want)
		}
	}
	if n := testing.AllocsPerRun(5, func() { argon2.IDKeyIn(m, []byte("p"), []byte("saltsaltsaltsalt"), 1, 256, 1, 32) }); n > 20 {
		t.Errorf("a hash in a work area made %v allocations", n)
	}
}
