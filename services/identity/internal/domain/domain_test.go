package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

var testArgon = Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1}

func TestHasher(t *testing.T) {
	t.Parallel()
	h, err := NewHasher(testArgon)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := h.Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(enc, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("Hash() = %q, want the PHC argon2id format", enc)
	}
	if !h.Verify("correct horse", enc) {
		t.Error("Verify(right password) = false")
	}
	if h.Verify("wrong horse", enc) {
		t.Error("Verify(wrong password) = true")
	}
	if h.Verify("correct horse", "") {
		t.Error("Verify(no hash) = true")
	}
	if h.Verify("x", "$argon2id$garbage") {
		t.Error("Verify(malformed) = true")
	}
	if _, err := NewHasher(Argon2Params{}); err == nil {
		t.Error("NewHasher(zero params) succeeded")
	}
}

func TestNewAccountValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     NewAccountInput
		fields []string
	}{
		{"valid", NewAccountInput{Email: " Pilot@Example.com ", Password: "longenough", ConfirmPassword: "longenough"}, nil},
		{"empty", NewAccountInput{}, []string{"username", "password"}},
		{"bad email and mismatch", NewAccountInput{Email: "nope", Password: "longenough", ConfirmPassword: "other123"}, []string{"username", "confirmPassword"}},
		{"short password", NewAccountInput{Email: "a@b.co", Password: "short", ConfirmPassword: "short"}, []string{"password"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.in.Validate()
			var got []string
			if e, ok := err.(*errs.Error); ok {
				for _, f := range e.Fields {
					got = append(got, f.Field)
				}
			} else if err != nil {
				t.Fatalf("Validate() = %v, want *errs.Error", err)
			}
			if strings.Join(got, ",") != strings.Join(c.fields, ",") {
				t.Errorf("Validate() fields = %v, want %v", got, c.fields)
			}
		})
	}
}

func TestEmail(t *testing.T) {
	t.Parallel()
	if got := NormalizeEmail(" John Doe@Army.MIL "); got != "john+doe@army.mil" {
		t.Errorf("NormalizeEmail() = %q", got)
	}
	for _, s := range []string{"a@b.co", "first.last+tag@mail.army.mil"} {
		if !ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = false", s)
		}
	}
	for _, s := range []string{"", "a", "a@b", "a b@c.de", "@b.co", "a@.co", "a@b..co"} {
		if ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = true", s)
		}
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	org := Organization{UUID: "o", Name: "Acme", AccountUUID: "acct-o"}
	t.Run("owner who is also user admin is not reported as user admin", func(t *testing.T) {
		p := Profile{Account: Account{Kind: Business}, Memberships: []Membership{{Org: org, Roles: []Role{RoleOwner, RoleUserAdmin, RoleAircraftAdmin}}}}
		f := p.Flags()
		if !f.IsOrgOwner || f.IsOrgUserAdmin || !f.IsOrgMember || !f.IsOrgAircraftAdmin {
			t.Errorf("Flags() = %+v", f)
		}
	})
	t.Run("user admin", func(t *testing.T) {
		f := Profile{Memberships: []Membership{{Org: org, Roles: []Role{RoleUserAdmin}}}}.Flags()
		if f.IsOrgOwner || !f.IsOrgUserAdmin {
			t.Errorf("Flags() = %+v", f)
		}
	})
	t.Run("child of a group", func(t *testing.T) {
		f := Profile{Account: Account{Kind: Child, ParentUUID: "p"}}.Flags()
		if !f.IsChild || f.IsParent || f.IsOrgMember {
			t.Errorf("Flags() = %+v", f)
		}
	})
	t.Run("staff flags come from account flags", func(t *testing.T) {
		f := Profile{Account: Account{Flags: map[string]bool{FlagEmployee: true, FlagCreditCardAdmin: true}}}.Flags()
		if !f.IsEmployee || !f.IsCreditCardAdmin || f.IsWebDev {
			t.Errorf("Flags() = %+v", f)
		}
	})
}

func TestSession(t *testing.T) {
	t.Parallel()
	p := DefaultSessionPolicy
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	s := Session{CreatedAt: t0, LastSeenAt: t0, ExpiresAt: t0.Add(p.Absolute)}
	if !s.Active(t0.Add(29*time.Minute), p) {
		t.Error("active within idle time")
	}
	if s.Active(t0.Add(30*time.Minute), p) {
		t.Error("idle session still active")
	}
	s.LastSeenAt = t0.Add(12*time.Hour - time.Minute)
	if s.Active(t0.Add(12*time.Hour), p) {
		t.Error("session past absolute expiry still active")
	}
	s.LastSeenAt = t0
	s.RevokedAt = t0.Add(time.Second)
	if s.Active(t0.Add(time.Minute), p) {
		t.Error("revoked session still active")
	}
	if (Session{LastSeenAt: t0}).NeedsTouch(t0.Add(30*time.Second), p) {
		t.Error("touch within the throttle interval")
	}
	tok, h, err := NewToken()
	if err != nil || !PlausibleToken(tok) || string(HashToken(tok)) != string(h) {
		t.Errorf("NewToken() = %q, %v", tok, err)
	}
	if PlausibleToken("short") {
		t.Error("PlausibleToken(short) = true")
	}
}

// The account's failures from everywhere never block it: past PerAccount each address
// gets UnderAttackPerAccountIP guesses (the buckets and their timing are the platform's,
// tested there and in the login tests).
func TestThrottle(t *testing.T) {
	t.Parallel()
	th := DefaultThrottle
	if th.PairLimit(false) != 5 || th.PairLimit(true) != 2 {
		t.Errorf("PairLimit = %d, %d under attack; want 5, 2", th.PairLimit(false), th.PairLimit(true))
	}
	if (Throttle{PerAccountIP: 5}).PairLimit(true) != 5 {
		t.Error("without an under-attack limit the pair limit changed")
	}
	if th.AccountIPKey("a@b.c", "1.2.3.4") == th.AccountKey("a@b.c") || th.IPKey("a@b.c") == th.AccountKey("a@b.c") {
		t.Error("the keys of different buckets collide")
	}
	if m := ThrottledMessage(10 * time.Minute); !strings.Contains(m, "10 minutes") {
		t.Errorf("ThrottledMessage() = %q", m)
	}
}

func TestMilitaryDomains(t *testing.T) {
	t.Parallel()
	pats := []DomainPattern{{Pattern: "mil"}, {Pattern: "mil.*", International: true}, {Pattern: "mod.uk", International: true},
		{Pattern: "forces.gc.ca", International: true}, {Pattern: "defence.gov.au", International: true}}
	cases := []struct {
		email   string
		ok      bool
		program string
	}{
		{"pilot@army.mil", true, ProgramMilitary},
		{"pilot@mail.af.mil", true, ProgramMilitary},
		{"pilot@mil", false, ""},
		{"pilot@raf.mil.uk", true, ProgramMilitaryIntl},
		// Allied forces write from these domains themselves (issue 27: they were refused).
		{"pilot@mod.uk", true, ProgramMilitaryIntl},
		{"pilot@forces.gc.ca", true, ProgramMilitaryIntl},
		{"pilot@defence.gov.au", true, ProgramMilitaryIntl},
		{"pilot@mil.uk", false, ""},
		{"pilot@gc.ca", false, ""},
		{"pilot@dstl.mod.uk", true, ProgramMilitaryIntl},
		{"pilot@family.com", false, ""},
		{"pilot@mil.com", false, ""},
	}
	for _, c := range cases {
		t.Run(c.email, func(t *testing.T) {
			p, ok := MatchDomain(c.email, pats)
			if ok != c.ok {
				t.Fatalf("MatchDomain() ok = %v, want %v", ok, c.ok)
			}
			if ok && Program("", p) != c.program {
				t.Errorf("Program() = %q, want %q", Program("", p), c.program)
			}
		})
	}
	if got := InvoiceURL(ProgramMilitaryIntl, "a+b@raf.mil.uk"); got != "/buy/military_intl?email=a%2Bb%40raf.mil.uk" {
		t.Errorf("InvoiceURL() = %q", got)
	}
}

func TestCodeCheck(t *testing.T) {
	t.Parallel()
	p := DefaultCodePolicy
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	code, err := NewCode()
	if err != nil || len(code) != 6 {
		t.Fatalf("NewCode() = %q, %v", code, err)
	}
	c := Code{ID: "1", Email: "a@army.mil", Hash: HashCode("1", "a@army.mil", code), ExpiresAt: now.Add(p.TTL)}
	if got := c.Check(code, now, p); got != CodeOK {
		t.Errorf("Check(right) = %v", got)
	}
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	if got := c.Check(wrong, now, p); got != CodeWrong {
		t.Errorf("Check(wrong) = %v", got)
	}
	if got := c.Check(code, now.Add(p.TTL), p); got != CodeExpired {
		t.Errorf("Check(expired) = %v", got)
	}
	c.Attempts = p.MaxAttempts
	if got := c.Check(code, now, p); got != CodeLocked {
		t.Errorf("Check(locked) = %v", got)
	}
	c.Attempts, c.ConsumedAt = 0, now
	if got := c.Check(code, now, p); got != CodeUsed {
		t.Errorf("Check(used) = %v", got)
	}
}
