package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Military programs and their buy pages.
const (
	ProgramMilitary     = "military"
	ProgramMilitaryIntl = "military_intl"
)

// DomainPattern is one military e-mail domain rule, stored as data. Pattern is a domain
// suffix matched on whole labels; "*" matches exactly one label: "mil" matches army.mil,
// "mil.*" matches mod.mil.uk. A pattern of two or more fixed labels is a mail domain itself
// (the allied forces write from forces.gc.ca, defence.gov.au, mod.uk) and matches it as
// well as its subdomains; a top-level "mil" or a wildcard pattern needs a host label
// before it.
type DomainPattern struct {
	Pattern       string
	International bool
}

// MatchDomain answers the first pattern the e-mail's domain ends with.
func MatchDomain(email string, patterns []DomainPattern) (DomainPattern, bool) {
	labels := strings.Split(Domain(email), ".")
	for _, p := range patterns {
		pl := strings.Split(strings.ToLower(strings.TrimPrefix(p.Pattern, ".")), ".")
		whole := len(pl) >= 2 && !slices.Contains(pl, "*")
		if len(pl) > len(labels) || len(pl) == len(labels) && !whole {
			continue // the suffix alone ("mil") is not a mail domain: want a host label before it
		}
		tail := labels[len(labels)-len(pl):]
		ok := true
		for i := range pl {
			if pl[i] != "*" && pl[i] != tail[i] {
				ok = false
				break
			}
		}
		if ok {
			return p, true
		}
	}
	return DomainPattern{}, false
}

// Program answers the military program: the one asked for when valid, otherwise the one
// the matched domain implies.
func Program(asked string, p DomainPattern) string {
	switch asked {
	case ProgramMilitary, ProgramMilitaryIntl:
		return asked
	}
	if p.International {
		return ProgramMilitaryIntl
	}
	return ProgramMilitary
}

// InvoiceURL is the military buy page for a verified e-mail.
func InvoiceURL(program, email string) string {
	page := "/buy/military"
	if program == ProgramMilitaryIntl {
		page = "/buy/military_intl"
	}
	return page + "?email=" + url.QueryEscape(email)
}

// CodePolicy governs verification codes.
type CodePolicy struct {
	TTL         time.Duration // a code expires this long after it is sent
	MaxAttempts int           // wrong guesses before the code is dead
	MaxPerHour  int           // codes sent to one address per hour
}

// DefaultCodePolicy: 15 minutes, 5 attempts, 5 codes an hour.
var DefaultCodePolicy = CodePolicy{TTL: 15 * time.Minute, MaxAttempts: 5, MaxPerHour: 5}

// NewCode answers a uniformly random 6-digit code.
func NewCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("draw code: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// HashCode is the stored form of a code, bound to its address and row so the same code
// for two addresses hashes differently. A 6-digit code is guessable offline whatever the
// hash; what protects it is the attempt limit and the expiry. The hash keeps codes out of
// plain sight in the database.
func HashCode(id, email, code string) []byte {
	m := hmac.New(sha256.New, []byte(id+"|"+email))
	m.Write([]byte(code))
	return m.Sum(nil)
}

// Code is a stored verification code.
type Code struct {
	ID         string
	Email      string
	Program    string
	Hash       []byte
	Attempts   int
	ExpiresAt  time.Time
	ConsumedAt time.Time
}

// CodeCheck is the outcome of checking a code.
type CodeCheck int

const (
	CodeOK CodeCheck = iota
	CodeWrong
	CodeExpired
	CodeUsed
	CodeLocked
)

// Check compares a guess; the caller records an attempt for CodeWrong and consumes on CodeOK.
func (c Code) Check(guess string, now time.Time, p CodePolicy) CodeCheck {
	switch {
	case !c.ConsumedAt.IsZero():
		return CodeUsed
	case !now.Before(c.ExpiresAt):
		return CodeExpired
	case c.Attempts >= p.MaxAttempts:
		return CodeLocked
	}
	guess = strings.TrimSpace(guess)
	if hmac.Equal(HashCode(c.ID, c.Email, guess), c.Hash) {
		return CodeOK
	}
	return CodeWrong
}
