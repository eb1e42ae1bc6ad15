package gift

import (
	"crypto/rand"
	"fmt"
	"io"
	"strings"
)

// A certificate code is 16 characters of Crockford's base-32 alphabet in four groups,
// "7KQ2-M9XD-4HTR-B6W?": 15 random characters (75 bits, so codes cannot be guessed; the
// code-attempt rate limit guards the rest) and a check character. The alphabet has no I,
// L, O or U, so a code read aloud or copied by hand is unambiguous, and Normalize reads
// the usual slips (O for 0, I or L for 1, lower case, missing or extra dashes and spaces).
const (
	alphabet     = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	randomChars  = 15
	codeChars    = randomChars + 1
	groupChars   = 4
	checkModulus = len(alphabet)
)

// NewCode draws a certificate code from r (crypto/rand.Reader in production).
func NewCode(r io.Reader) (string, error) {
	buf := make([]byte, randomChars)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("draw gift certificate code: %w", err)
	}
	digits := make([]int, 0, codeChars)
	for _, b := range buf {
		digits = append(digits, int(b)&31) // 256 is a multiple of 32: no modulo bias
	}
	digits = append(digits, checkDigit(digits))
	return format(digits), nil
}

// MustNewCode draws a code from crypto/rand; crypto/rand does not fail on supported systems.
func MustNewCode() string {
	c, err := NewCode(rand.Reader)
	if err != nil {
		panic(err)
	}
	return c
}

// Normalize answers the canonical form of a typed code and whether it is a well-formed
// certificate code with a correct check character. Codes that are not in this format (the
// development seed's GIFT-USD-100, for example) are answered upper-cased with ok false, so
// that a lookup can still find them.
func Normalize(typed string) (string, bool) {
	up := strings.ToUpper(strings.TrimSpace(typed))
	var digits []int
	for _, r := range up {
		switch r {
		case '-', ' ':
			continue
		case 'O':
			r = '0'
		case 'I', 'L':
			r = '1'
		}
		i := strings.IndexRune(alphabet, r)
		if i < 0 {
			return up, false
		}
		digits = append(digits, i)
	}
	if len(digits) != codeChars || checkDigit(digits[:randomChars]) != digits[randomChars] {
		return up, false
	}
	return format(digits), true
}

// checkDigit is the Luhn mod N check character over the alphabet (N = 32): it catches
// every single wrong character and nearly every swap of two neighbours (the test counts).
func checkDigit(digits []int) int {
	sum := 0
	factor := 2
	for i := len(digits) - 1; i >= 0; i-- {
		addend := factor * digits[i]
		addend = addend/checkModulus + addend%checkModulus
		sum += addend
		if factor == 2 {
			factor = 1
		} else {
			factor = 2
		}
	}
	return (checkModulus - sum%checkModulus) % checkModulus
}

func format(digits []int) string {
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && i%groupChars == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(alphabet[d])
	}
	return b.String()
}
