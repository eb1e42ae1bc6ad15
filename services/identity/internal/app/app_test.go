package app_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/identity/internal/adapters"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type env struct {
	svc   *iapp.Service
	store *adapters.Store
	pool  *pgxpool.Pool
	clock *clock
	pol   iapp.Policies
}

// setup runs the service on a fresh database; opts change the default policies.
func setup(t *testing.T, opts ...func(*iapp.Policies)) *env {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.DiscardHandler)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		t.Fatal(err)
	}
	h, err := domain.NewHasher(domain.Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	pol := iapp.Policies{Sessions: domain.DefaultSessionPolicy, Throttle: domain.DefaultThrottle, Codes: domain.DefaultCodePolicy}
	for _, o := range opts {
		o(&pol)
	}
	store := adapters.NewStore(pool, telemetry.Propagator())
	return &env{svc: iapp.New(store, h, pol, c.Now, log), store: store, pool: pool, clock: c, pol: pol}
}

var req = iapp.Request{IP: "203.0.113.7", UserAgent: "test"}

func (e *env) account(t *testing.T, email string) iapp.Login {
	t.Helper()
	l, err := e.svc.CreateAccount(context.Background(), domain.NewAccountInput{Email: email, Password: "correct horse", ConfirmPassword: "correct horse"}, req)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fields(err error) []string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	return out
}

func TestCreateAccount(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	l := e.account(t, " New.Pilot@Example.com ")
	if l.Account.Email != "new.pilot@example.com" || l.Token == "" {
		t.Errorf("CreateAccount() = %+v", l)
	}
	t.Run("field errors", func(t *testing.T) {
		_, err := e.svc.CreateAccount(ctx, domain.NewAccountInput{Email: "nope", Password: "short", ConfirmPassword: "other"}, req)
		if got := fields(err); len(got) != 3 {
			t.Errorf("fields = %v, want username, password, confirmPassword", got)
		}
	})
	t.Run("e-mail taken", func(t *testing.T) {
		_, err := e.svc.CreateAccount(ctx, domain.NewAccountInput{Email: "new.pilot@example.com", Password: "longenough", ConfirmPassword: "longenough"}, req)
		if got := fields(err); len(got) != 1 || got[0] != "username" {
			t.Errorf("err = %v, want a username field error", err)
		}
	})
	t.Run("account created event in the outbox", func(t *testing.T) {
		var payload []byte
		if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE topic = $1`, events.TopicAccountCreated).Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var ev eventsv1.AccountCreated
		if err := proto.Unmarshal(payload, &ev); err != nil || ev.GetEmail() != "new.pilot@example.com" || ev.GetAccountUuid() != l.Account.UUID {
			t.Errorf("event = %v, %v", &ev, err)
		}
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.account(t, "pilot@example.com")

	l, err := e.svc.Login(ctx, "PILOT@example.com", "correct horse", req)
	if err != nil || l.Token == "" || l.Account.Email != "pilot@example.com" {
		t.Fatalf("Login(right) = %+v, %v", l, err)
	}
	_, errWrong := e.svc.Login(ctx, "pilot@example.com", "wrong", req)
	_, errUnknown := e.svc.Login(ctx, "nobody@example.com", "wrong", req)
	if errs.CodeOf(errWrong) != errs.Unauthorized || errWrong.Error() != errUnknown.Error() {
		t.Errorf("wrong password = %v, unknown user = %v: want the same unauthenticated answer", errWrong, errUnknown)
	}

	t.Run("throttled after 5 failures from one address, for the window only", func(t *testing.T) {
		for range 4 { // one failure above
			if _, err := e.svc.Login(ctx, "pilot@example.com", "wrong", req); errs.CodeOf(err) != errs.Unauthorized {
				t.Fatalf("failure = %v", err)
			}
		}
		_, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", req)
		var th *iapp.Throttled
		if errs.CodeOf(err) != errs.Exhausted || !errors.As(err, &th) || th.Wait > 15*time.Minute {
			t.Fatalf("Login(throttled) = %v, want resource_exhausted with a wait of at most 15m", err)
		}
		// Another address is not blocked: an attacker cannot lock the real user out.
		if _, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", iapp.Request{IP: "198.51.100.1"}); err != nil {
			t.Errorf("Login(from another address) = %v", err)
		}
		e.clock.Advance(15*time.Minute + time.Second)
		if _, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", req); err != nil {
			t.Errorf("Login(after the window) = %v", err)
		}
	})
	t.Run("throttled per address over many accounts", func(t *testing.T) {
		ip := iapp.Request{IP: "192.0.2.99"}
		for i := range e.pol.Throttle.PerIP {
			_, _ = e.svc.Login(ctx, "stuffing"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com", "x", ip)
		}
		if _, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", ip); errs.CodeOf(err) != errs.Exhausted {
			t.Errorf("Login(after stuffing) = %v, want resource_exhausted", err)
		}
	})
}

func TestSessions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	created := e.account(t, "pilot@example.com")

	t.Run("login rotates the session", func(t *testing.T) {
		l, err := e.svc.Login(ctx, "pilot@example.com", "correct horse", iapp.Request{IP: "203.0.113.7", Token: created.Token})
		if err != nil {
			t.Fatal(err)
		}
		if l.Token == created.Token {
			t.Fatal("login kept the token")
		}
		if _, err := e.svc.Authenticate(ctx, created.Token); errs.CodeOf(err) != errs.Unauthorized {
			t.Errorf("Authenticate(pre-login token) = %v, want unauthenticated", err)
		}
		a, err := e.svc.Authenticate(ctx, l.Token)
		if err != nil || a.Profile.Account.Email != "pilot@example.com" {
			t.Errorf("Authenticate(new token) = %+v, %v", a, err)
		}
	})
	t.Run("idle expiry and touch", func(t *testing.T) {
		l, _ := e.svc.Login(ctx, "pilot@example.com", "correct horse", req)
		for range 5 { // used every 20 minutes: stays alive past the idle limit
			e.clock.Advance(20 * time.Minute)
			if _, err := e.svc.Authenticate(ctx, l.Token); err != nil {
				t.Fatalf("Authenticate(in use) = %v", err)
			}
		}
		e.clock.Advance(31 * time.Minute)
		if _, err := e.svc.Authenticate(ctx, l.Token); errs.CodeOf(err) != errs.Unauthorized {
			t.Errorf("Authenticate(idle) = %v, want unauthenticated", err)
		}
	})
	t.Run("touch is throttled", func(t *testing.T) {
		l, _ := e.svc.Login(ctx, "pilot@example.com", "correct horse", req)
		e.clock.Advance(10 * time.Second)
		a, _ := e.svc.Authenticate(ctx, l.Token)
		ss, _ := e.store.SessionByHash(ctx, domain.HashToken(l.Token))
		if !ss.LastSeenAt.Equal(a.Session.CreatedAt) {
			t.Errorf("last use written after 10s: %v, want %v", ss.LastSeenAt, a.Session.CreatedAt)
		}
		e.clock.Advance(time.Minute)
		_, _ = e.svc.Authenticate(ctx, l.Token)
		ss, _ = e.store.SessionByHash(ctx, domain.HashToken(l.Token))
		if !ss.LastSeenAt.Equal(e.clock.Now()) {
			t.Errorf("last use = %v, want %v", ss.LastSeenAt, e.clock.Now())
		}
	})
	t.Run("absolute expiry", func(t *testing.T) {
		l, _ := e.svc.Login(ctx, "pilot@example.com", "correct horse", req)
		for range 12 * 4 {
			e.clock.Advance(15 * time.Minute)
			_, err := e.svc.Authenticate(ctx, l.Token)
			if err != nil && e.clock.Now().Before(l.Expires) {
				t.Fatalf("Authenticate before absolute expiry = %v", err)
			}
		}
		if _, err := e.svc.Authenticate(ctx, l.Token); errs.CodeOf(err) != errs.Unauthorized {
			t.Errorf("Authenticate(after 12h) = %v, want unauthenticated", err)
		}
	})
	t.Run("logout revokes", func(t *testing.T) {
		l, _ := e.svc.Login(ctx, "pilot@example.com", "correct horse", req)
		if err := e.svc.Logout(ctx, l.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Authenticate(ctx, l.Token); errs.CodeOf(err) != errs.Unauthorized {
			t.Errorf("Authenticate(after logout) = %v", err)
		}
	})
	t.Run("garbage tokens", func(t *testing.T) {
		for _, tok := range []string{"", "x", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
			if _, err := e.svc.Authenticate(ctx, tok); errs.CodeOf(err) != errs.Unauthorized {
				t.Errorf("Authenticate(%q) = %v", tok, err)
			}
		}
	})
}

// The session sweep deletes the sessions that ended (revoked or expired) a day ago or
// earlier, and no other.
func TestDeleteEndedSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	e.account(t, "sweep@example.com") // its session expires in 12 h
	out, err := e.svc.Login(ctx, "sweep@example.com", "correct horse", req)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Logout(ctx, out.Token); err != nil {
		t.Fatal(err)
	}
	sessions := func() int {
		t.Helper()
		var n int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sweep := func(want int64) {
		t.Helper()
		if n, err := e.svc.DeleteEndedSessions(ctx); err != nil || n != want {
			t.Errorf("DeleteEndedSessions at %s = %d (%v), want %d", e.clock.Now(), n, err, want)
		}
	}
	e.clock.Advance(25 * time.Hour) // the revoked one ended 25 h ago, the first expired 13 h ago
	live, err := e.svc.Login(ctx, "sweep@example.com", "correct horse", req)
	if err != nil {
		t.Fatal(err)
	}
	sweep(1)
	if n := sessions(); n != 2 {
		t.Errorf("%d sessions after the sweep, want 2 (expired 13 h ago, live)", n)
	}
	if _, err := e.svc.Authenticate(ctx, live.Token); err != nil {
		t.Errorf("the live session after the sweep: %v", err)
	}
	e.clock.Advance(12 * time.Hour) // the first expired 25 h ago; the last one just now
	sweep(1)
	if n := sessions(); n != 1 {
		t.Errorf("%d sessions after the second sweep, want 1", n)
	}
}

// lastCode reads the code out of the last eligibility event in the outbox, as the
// notifications service will.
func (e *env) lastCode(t *testing.T) *eventsv1.EligibilityCodeRequested {
	t.Helper()
	var payload []byte
	if err := e.pool.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id DESC LIMIT 1`,
		events.TopicEligibilityCodeRequested).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	var ev eventsv1.EligibilityCodeRequested
	if err := proto.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

func TestMilitaryCode(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	const addr = "jane.doe@navy.mil"

	if _, err := e.svc.RequestMilitaryCode(ctx, "not an email", ""); err == nil || err.Error() == "" || fields(err)[0] != "email" {
		t.Errorf("RequestMilitaryCode(malformed) = %v", err)
	}
	if r, err := e.svc.RequestMilitaryCode(ctx, "pilot@gmail.com", ""); err != nil || r.Eligible {
		t.Errorf("RequestMilitaryCode(civilian) = %+v, %v", r, err)
	}
	if r, err := e.svc.RequestMilitaryCode(ctx, addr, "military"); err != nil || !r.Eligible {
		t.Fatalf("RequestMilitaryCode(navy.mil) = %+v, %v", r, err)
	}
	ev := e.lastCode(t)
	if ev.GetEmail() != addr || len(ev.GetCode()) != 6 {
		t.Fatalf("event = %v", ev)
	}
	var stored []byte
	_ = e.pool.QueryRow(ctx, `SELECT code_hash FROM eligibility_codes WHERE email = $1`, addr).Scan(&stored)
	if string(stored) == ev.GetCode() || len(stored) != 32 {
		t.Errorf("code stored as %x, want a hash", stored)
	}
	wrong := "000000"
	if ev.GetCode() == wrong {
		wrong = "111111"
	}

	t.Run("single use", func(t *testing.T) {
		if ok, _, err := e.svc.MilitaryEligibility(ctx, addr, ""); err != nil || ok {
			t.Errorf("MilitaryEligibility before the code = %v, %v; want not eligible (a code sent proves nothing)", ok, err)
		}
		if _, err := e.svc.VerifyMilitaryCode(ctx, addr, wrong); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("VerifyMilitaryCode(wrong) = %v", err)
		}
		u, err := e.svc.VerifyMilitaryCode(ctx, addr, ev.GetCode())
		if err != nil || u != "/buy/military?email=jane.doe%40navy.mil" {
			t.Errorf("VerifyMilitaryCode(right) = %q, %v", u, err)
		}
		// What checkout asks before it sells a military plan (issue 27).
		if ok, program, err := e.svc.MilitaryEligibility(ctx, " Jane.Doe@Navy.mil ", ""); err != nil || !ok || program != "military" {
			t.Errorf("MilitaryEligibility after the code = %v %q, %v", ok, program, err)
		}
		if _, err := e.svc.VerifyMilitaryCode(ctx, addr, ev.GetCode()); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("VerifyMilitaryCode(reused) = %v, want refused", err)
		}
	})
	t.Run("attempts", func(t *testing.T) {
		_, _ = e.svc.RequestMilitaryCode(ctx, addr, "military_intl")
		ev := e.lastCode(t)
		for range e.pol.Codes.MaxAttempts {
			_, _ = e.svc.VerifyMilitaryCode(ctx, addr, wrong)
		}
		if _, err := e.svc.VerifyMilitaryCode(ctx, addr, ev.GetCode()); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("VerifyMilitaryCode(right, after 5 wrong) = %v, want refused", err)
		}
	})
	t.Run("a new code ends the old one; expiry", func(t *testing.T) {
		_, _ = e.svc.RequestMilitaryCode(ctx, addr, "military_intl")
		old := e.lastCode(t)
		_, _ = e.svc.RequestMilitaryCode(ctx, addr, "military_intl")
		cur := e.lastCode(t)
		if old.GetCode() != cur.GetCode() {
			if _, err := e.svc.VerifyMilitaryCode(ctx, addr, old.GetCode()); err == nil {
				t.Error("superseded code accepted")
			}
		}
		e.clock.Advance(e.pol.Codes.TTL)
		if _, err := e.svc.VerifyMilitaryCode(ctx, addr, cur.GetCode()); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("VerifyMilitaryCode(expired) = %v, want refused", err)
		}
	})
	t.Run("codes per hour", func(t *testing.T) {
		// Four were issued above within the hour; the fifth is the last.
		if _, err := e.svc.RequestMilitaryCode(ctx, addr, ""); err != nil {
			t.Fatalf("RequestMilitaryCode(5th in an hour) = %v", err)
		}
		if _, err := e.svc.RequestMilitaryCode(ctx, addr, ""); errs.CodeOf(err) != errs.Exhausted {
			t.Errorf("RequestMilitaryCode(6th in an hour) = %v, want resource_exhausted", err)
		}
		e.clock.Advance(time.Hour)
		r, err := e.svc.RequestMilitaryCode(ctx, addr, "")
		if err != nil || !r.Eligible {
			t.Fatalf("RequestMilitaryCode(an hour later) = %+v, %v", r, err)
		}
		u, err := e.svc.VerifyMilitaryCode(ctx, addr, e.lastCode(t).GetCode())
		if err != nil || u != "/buy/military?email=jane.doe%40navy.mil" {
			t.Errorf("VerifyMilitaryCode() = %q, %v", u, err)
		}
	})
}

func TestAssociation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	if err := e.store.AddAssociationMember(ctx, "42", "Earhart"); err != nil {
		t.Fatal(err)
	}
	in := iapp.AssociationInput{Email: "amelia@example.com", MemberNumber: "42", LastName: " earhart ", Consent: true}
	if _, err := e.svc.VerifyAssociationMember(ctx, iapp.AssociationInput{Email: "a@b.co", MemberNumber: "42", LastName: "x"}, req); fields(err)[0] != "consent" {
		t.Errorf("without consent = %v", err)
	}
	bad := in
	bad.CreateUser, bad.Password, bad.VerifyPassword = true, "longenough", "different1"
	if _, err := e.svc.VerifyAssociationMember(ctx, bad, req); err == nil || err.(*errs.Error).Message != domain.MsgPasswordsDiffer {
		t.Errorf("passwords differ = %v", err)
	}
	wrong := in
	wrong.LastName = "Smith"
	if r, err := e.svc.VerifyAssociationMember(ctx, wrong, req); err != nil || r.Verified || r.ErrorMessage == "" {
		t.Errorf("not a member = %+v, %v", r, err)
	}
	in.CreateUser, in.Password, in.VerifyPassword = true, "longenough", "longenough"
	r, err := e.svc.VerifyAssociationMember(ctx, in, req)
	if err != nil || !r.Verified || r.Login == nil {
		t.Fatalf("member with account = %+v, %v", r, err)
	}
	if _, err := e.svc.Login(ctx, "amelia@example.com", "longenough", req); err != nil {
		t.Errorf("login with the created account = %v", err)
	}
}

// A burst of concurrent wrong passwords for one account from one address verifies at most
// the limit (5): each attempt is reserved before its password is checked. Before, every
// attempt of the burst passed the check made before any was counted (39 of 40 verified)
// and the right password, sent among them, got in.
func TestLoginBurstVerifiesAtMostTheLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.account(t, "burst@example.com")
	const n = 40
	codes := make(chan errs.Code, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.Login(ctx, "burst@example.com", "wrong", req)
			codes <- errs.CodeOf(err)
		}()
	}
	wg.Wait()
	close(codes)
	count := map[errs.Code]int{}
	for c := range codes {
		count[c]++
	}
	if count[errs.Unauthorized] != e.pol.Throttle.PerAccountIP || count[errs.Exhausted] != n-e.pol.Throttle.PerAccountIP {
		t.Errorf("40 concurrent wrong passwords: %v; want %d verified (401) and the rest throttled", count, e.pol.Throttle.PerAccountIP)
	}
	_, err := e.svc.Login(ctx, "burst@example.com", "correct horse", req)
	if errs.CodeOf(err) != errs.Exhausted || errs.RetryAfterOf(err) <= 0 {
		t.Errorf("the right password after the burst = %v (retry after %s); want throttled with a time to wait", err, errs.RetryAfterOf(err))
	}
	// Another address is not locked out by the burst.
	if _, err := e.svc.Login(ctx, "burst@example.com", "correct horse", iapp.Request{IP: "198.51.100.2"}); err != nil {
		t.Errorf("login from another address = %v", err)
	}
}
