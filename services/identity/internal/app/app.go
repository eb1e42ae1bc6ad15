// Package app holds identity's use cases: create account, log in and out, resolve
// sessions, the current user and organization reads, preferences, and the eligibility
// flows. It runs the domain rules over the store.
package app

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/third_party/argon2"
)

// Policies are the tunable rules.
type Policies struct {
	Sessions domain.SessionPolicy
	Throttle domain.Throttle
	Codes    domain.CodePolicy
	Links    domain.LinkPolicy
	// Hashing sizes the password-hashing pool (HashPool): its work areas, the areas kept
	// for known devices, the areas per address, the queue and the longest wait.
	Hashing HashPoolConfig
	// Devices signs the device cookies of known devices; a zero value signs with a key of
	// this process only (tests).
	Devices domain.DeviceCookies
	// Human verifies the human-verification value a login past the throttle's limits
	// carries (nil: human verification is off, and such a login is refused).
	Human human.Verifier
}

// Service runs identity's use cases.
type Service struct {
	hashes  *HashPool
	store   Store
	hasher  *domain.Hasher
	pol     Policies
	devices domain.DeviceCookies
	now     func() time.Time
	log     *slog.Logger
	// verifying, when set, runs while a login's password is checked with its work area
	// held: a test seam, so a flood can hold its areas without timing.
	verifying func(ip string)

	resetPerEmail Limiter
	invite        InviteLimits
	resetTiming   timing // how long issuing a reset link takes, which an unknown e-mail waits
}

// New builds the service over store.
func New(store Store, hasher *domain.Hasher, pol Policies, now func() time.Time, log *slog.Logger) *Service {
	svc := &Service{store: store, hasher: hasher, pol: pol, now: now, log: log, devices: pol.Devices}
	svc.hashes = NewHashPool(pol.Hashing, func() *argon2.Memory { return hasher.NewMemory() })
	if hasher != nil {
		svc.hashes.cost = hasher.HashTime()
	}
	// Until a link is issued, an unknown e-mail waits what a write commit usually takes.
	svc.resetTiming.mean = 8 * time.Millisecond
	if svc.devices.Zero() {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		svc.devices = domain.NewDeviceCookies(key)
	}
	return svc
}

// Request describes where a call came from.
type Request struct {
	IP, UserAgent string
	// Token is the session token the request carried, if any (revoked at login).
	Token string
	// Device is the device cookie the request carried, if any.
	Device string
	// HumanValue is the human-verification value the login form sent, if any.
	HumanValue string
}

// Login is a started session.
type Login struct {
	Token   string
	Account domain.Account
	Expires time.Time
	// Device is the device cookie to set (the login's own, or a new one).
	Device string
}

// Throttled is the cause of a refused login; Wait says when to retry.
type Throttled struct{ Wait time.Duration }

func (t *Throttled) Error() string { return fmt.Sprintf("login throttled for %s", t.Wait) }

// MsgBadCredentials is the one answer for an unknown e-mail and a wrong password alike.
const MsgBadCredentials = "Invalid email address or password."

// Login checks credentials and starts a session, revoking the one the request came with.
//
// The attempt is counted before its password is verified (one statement, with the
// account's look-up in the same round trip), so a burst of concurrent guesses cannot all
// pass a check made before any is counted, and a throttled one costs no hash. A login
// from a known device of the account (its device cookie) is counted in that device's
// bucket only and hashes in the pool's known-device lane: attempts from elsewhere never
// throttle or delay it. Any other login is counted per account and address, per address
// and per account (loginBuckets) and queues fairly per address.
//
// An unknown e-mail (or an account without a password) takes no work area: it waits as
// long as verifications take lately and answers as a wrong password does, so neither the
// message, the timing nor the throttling tells them apart, while a flood of made-up
// e-mails costs no hashing. A right password is settled in the session's transaction.
func (s *Service) Login(ctx context.Context, email, password string, req Request) (Login, error) {
	email = domain.NormalizeEmail(email)
	if email == "" || password == "" {
		return Login{}, errs.E(errs.Unauthorized, "%s", MsgBadCredentials)
	}
	now := s.now()
	device, known := s.devices.Check(req.Device, email)
	b, settle := s.loginBuckets(email, req.IP, device, known)
	st, err := s.store.BeginLogin(ctx, b, email, now)
	if err != nil {
		return Login{}, err
	}
	if !st.OK {
		if err := s.pastLimits(ctx, req, max(st.Wait, time.Second)); err != nil {
			return Login{}, err
		}
	}
	if !st.Found || st.Account.PasswordHash == "" {
		if err := s.waitLikeAVerification(ctx); err != nil {
			return Login{}, err
		}
		return Login{}, errs.E(errs.Unauthorized, "%s", MsgBadCredentials)
	}
	ok, err := s.verifyFrom(ctx, req.IP, known, password, st.Account.PasswordHash)
	if err != nil {
		return Login{}, err
	}
	if !ok {
		return Login{}, errs.E(errs.Unauthorized, "%s", MsgBadCredentials)
	}
	cookie := req.Device
	if !known {
		if cookie, err = s.devices.Issue(email); err != nil {
			return Login{}, err
		}
	}
	l, err := s.startSessionSettled(ctx, st.Account, req, settle)
	l.Device = cookie
	return l, err
}

// pastLimits answers a login past the throttle's limits: with human verification on it
// asks for the widget's value and lets a verified login go on (OWASP: a CAPTCHA, not a
// lock-out, so a flood from elsewhere never keeps the owner out); without it, 429 until
// wait ends. A verified login still hashes in the pool's fair queue.
func (s *Service) pastLimits(ctx context.Context, req Request, wait time.Duration) error {
	if s.pol.Human == nil {
		return &errs.Error{Code: errs.Exhausted, Message: domain.ThrottledMessage(wait), Cause: &Throttled{Wait: wait}, RetryAfter: wait}
	}
	ok, err := s.pol.Human.Verify(ctx, req.HumanValue, req.IP)
	if err != nil {
		// The verifier's errors never carry its secret.
		s.log.WarnContext(ctx, "human verification unavailable", "err", err.Error())
		return &errs.Error{Code: errs.Unavailable, Message: human.MsgUnavailable, Reason: human.ReasonRequired,
			Fields: []errs.FieldError{{Field: "recaptchaValue", Message: human.MsgUnavailable}}, Cause: err}
	}
	if !ok {
		msg := human.Refused(req.HumanValue)
		return &errs.Error{Code: errs.Invalid, Message: msg, Reason: human.ReasonRequired,
			Fields: []errs.FieldError{{Field: "recaptchaValue", Message: msg}}}
	}
	return nil
}

// loginBuckets answers the buckets a login attempt is counted in and what a right
// password gives back. A known device: its own bucket, kept (it counts every login).
// Otherwise domain.Throttle's three: the account from this address (its burst cut while
// the account is under attack), the account from everywhere (never refuses), this address
// over every account; a right password gives back its account and address tokens and
// forgets this address's failures for the account, while the account's count from
// elsewhere stays, so the owner's login does not reset an attack still going on.
func (s *Service) loginBuckets(email, ip, device string, known bool) (LoginBuckets, LoginSettle) {
	th := s.pol.Throttle
	if known {
		return LoginBuckets{Pair: Bucket{th.DeviceKey(device), ratelimit.PerWindow(th.PerDevice, th.Window)}, PairUnderAttack: max(th.PerDevice, 1)}, LoginSettle{}
	}
	acct := Bucket{th.AccountKey(email), ratelimit.PerWindow(th.PerAccount, th.Window)}
	pair := Bucket{th.AccountIPKey(email, ip), ratelimit.PerWindow(th.PerAccountIP, th.Window)}
	addr := Bucket{th.IPKey(ip), ratelimit.PerWindow(th.PerIP, th.Window)}
	return LoginBuckets{Account: acct, Pair: pair, IP: addr, PairUnderAttack: th.PairLimit(true)},
		LoginSettle{Return: []Bucket{acct, addr}, Forget: []string{pair.Key}}
}

// waitLikeAVerification waits as long as a password verification takes lately, its wait
// for a work area included, without taking one.
func (s *Service) waitLikeAVerification(ctx context.Context) error {
	t := time.NewTimer(s.hashes.Cost())
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Unavailable, ctx.Err(), "the service is temporarily unavailable, please retry")
	}
}

// verify checks a password in one of the pool's work areas: each argon2id verification
// takes its memory parameter (19 MiB) for tens of milliseconds, so the pool's size is the
// process's hashing memory.
func (s *Service) verify(ctx context.Context, password, hash string) (bool, error) {
	return s.verifyFrom(ctx, "", false, password, hash)
}

// verifyFrom is verify for a login from the client address ip (known: from a known
// device of the account).
func (s *Service) verifyFrom(ctx context.Context, ip string, known bool, password, hash string) (bool, error) {
	area, release, err := s.hashes.Acquire(ctx, ip, known)
	if err != nil {
		return false, err
	}
	defer release()
	if s.verifying != nil {
		s.verifying(ip)
	}
	return s.hasher.VerifyIn(area, password, hash), nil
}

// hashPassword hashes a new password for a request from ip in one of the pool's work
// areas.
func (s *Service) hashPassword(ctx context.Context, ip, password string) (string, error) {
	area, release, err := s.hashes.Acquire(ctx, ip, false)
	if err != nil {
		return "", err
	}
	defer release()
	return s.hasher.HashIn(area, password)
}

// HashSlotsInUse answers how many password hashes are being computed now (for tests and
// the busy metric).
func (s *Service) HashSlotsInUse() int { return s.hashes.InUse() }

func (s *Service) startSession(ctx context.Context, acct domain.Account, req Request) (Login, error) {
	token, hash, err := domain.NewToken()
	if err != nil {
		return Login{}, err
	}
	now := s.now()
	expires := now.Add(s.pol.Sessions.Absolute)
	var prev []byte
	if req.Token != "" {
		prev = domain.HashToken(req.Token)
	}
	if _, err := s.store.CreateSession(ctx, hash, acct.UUID, now, expires, req.IP, req.UserAgent, prev); err != nil {
		return Login{}, err
	}
	return Login{Token: token, Account: acct, Expires: expires}, nil
}

// startSessionSettled is startSession for a login's right password: the session and the
// throttle's bookkeeping in one transaction.
func (s *Service) startSessionSettled(ctx context.Context, acct domain.Account, req Request, settle LoginSettle) (Login, error) {
	token, hash, err := domain.NewToken()
	if err != nil {
		return Login{}, err
	}
	now := s.now()
	ss := NewSession{Hash: hash, AccountUUID: acct.UUID, Now: now, Expires: now.Add(s.pol.Sessions.Absolute), IP: req.IP, UserAgent: req.UserAgent}
	if req.Token != "" {
		ss.Previous = domain.HashToken(req.Token)
	}
	if _, err := s.store.FinishLogin(ctx, ss, settle); err != nil {
		return Login{}, err
	}
	return Login{Token: token, Account: acct, Expires: ss.Expires}, nil
}

// Logout revokes the session of token (nothing to do without one).
func (s *Service) Logout(ctx context.Context, token string) error {
	if token == "" || !domain.PlausibleToken(token) {
		return nil
	}
	return s.store.RevokeSession(ctx, domain.HashToken(token), s.now())
}

// SweepSessions deletes sessions that ended a day ago, every interval until ctx ends (not
// at all when interval is not positive).
func (s *Service) SweepSessions(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		<-ctx.Done()
		return
	}
	for {
		n, err := s.DeleteEndedSessions(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "session sweep failed", "err", err.Error())
		} else if n > 0 {
			s.log.InfoContext(ctx, "ended sessions deleted", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// DeleteEndedSessions deletes the sessions that ended (expired or revoked) a day ago or
// earlier, and answers how many.
func (s *Service) DeleteEndedSessions(ctx context.Context) (int64, error) {
	return s.store.DeleteEndedSessions(ctx, s.now().Add(-24*time.Hour))
}

// Authenticated is a live session with its account.
type Authenticated struct {
	Session domain.Session
	Profile domain.Profile
}

var errNotLoggedIn = errs.E(errs.Unauthorized, "Login Required")

// Authenticate resolves a session token; Unauthorized when it is not a live session. A
// use moves the idle deadline, written at most once per touch interval.
func (s *Service) Authenticate(ctx context.Context, token string) (Authenticated, error) {
	if !domain.PlausibleToken(token) {
		return Authenticated{}, errNotLoggedIn
	}
	ss, err := s.store.SessionByHash(ctx, domain.HashToken(token))
	if err != nil {
		return Authenticated{}, err
	}
	now := s.now()
	if !ss.Active(now, s.pol.Sessions) {
		return Authenticated{}, errNotLoggedIn
	}
	if ss.NeedsTouch(now, s.pol.Sessions) {
		if err := s.store.TouchSession(ctx, ss.ID, now); err != nil {
			// The session is valid; a missed touch only shortens its idle life.
			s.log.WarnContext(ctx, "session touch failed", "err", err.Error())
		}
	}
	p, err := s.store.Profile(ctx, ss.AccountUUID)
	if errs.CodeOf(err) == errs.NotFound {
		return Authenticated{}, errNotLoggedIn
	}
	if err != nil {
		return Authenticated{}, err
	}
	return Authenticated{Session: ss, Profile: p}, nil
}

// CreateAccount creates an individual account, publishes account created, and logs it in.
func (s *Service) CreateAccount(ctx context.Context, in domain.NewAccountInput, req Request) (Login, error) {
	if err := in.Validate(); err != nil {
		return Login{}, err
	}
	acct, err := s.createAccount(ctx, req.IP, domain.Account{Email: domain.NormalizeEmail(in.Email), Kind: domain.Individual,
		IsEU: in.IsEU, MarketingConsent: in.Consent}, in.Password)
	if err != nil {
		return Login{}, err
	}
	return s.startSession(ctx, acct, req)
}

// createAccount hashes the password and stores the account with its created event.
// Failures other than field errors answer the spec's fallback message.
func (s *Service) createAccount(ctx context.Context, ip string, a domain.Account, password string) (domain.Account, error) {
	if password != "" {
		h, err := s.hashPassword(ctx, ip, password)
		if errs.CodeOf(err) == errs.Exhausted || errs.CodeOf(err) == errs.Unavailable {
			return a, err
		}
		if err != nil {
			return a, errs.Wrap(errs.Internal, err, domain.MsgCreateAccountFailed)
		}
		a.PasswordHash = h
	}
	a.CreatedAt = s.now()
	id, err := s.store.CreateAccount(ctx, a, func(id string) ([]kafka.Event, error) {
		return accountCreated(id, a)
	})
	if err != nil {
		if errs.CodeOf(err) == errs.Invalid {
			return a, err
		}
		return a, errs.Wrap(errs.Internal, err, domain.MsgCreateAccountFailed)
	}
	a.UUID = id
	return a, nil
}

func accountCreated(id string, a domain.Account) ([]kafka.Event, error) {
	b, err := proto.Marshal(&eventsv1.AccountCreated{AccountUuid: id, Email: a.Email, AccountKind: string(a.Kind),
		IsEu: a.IsEU, MarketingConsent: a.MarketingConsent, CreatedAt: timestamppb.New(a.CreatedAt), Passwordless: a.PasswordHash == ""})
	if err != nil {
		return nil, fmt.Errorf("encode account created: %w", err)
	}
	return []kafka.Event{{Topic: events.TopicAccountCreated, Key: id, Payload: b}}, nil
}

// ProvisionAccount answers the account of an e-mail, creating a password-less individual
// account when there is none: checkout creates a new buyer's account at purchase ('Your
// account will be created at checkout.'). Idempotent by e-mail, also under concurrency
// (a lost creation race reads the winner's account).
// It also answers whether the account has no password yet (never activated).
func (s *Service) ProvisionAccount(ctx context.Context, email string, isEU, consent bool) (id string, created, passwordless bool, err error) {
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return "", false, false, errs.Field("email", "Please enter your email address.")
	}
	// The insert goes first and a taken address is read after it: a new buyer (every
	// first purchase, the common case) then costs one round trip and one transaction, not a
	// lookup before them; an existing account (the buyer is sent to log in) costs the
	// refused insert and the lookup.
	a, err := s.provisionPasswordless(ctx, domain.Account{Email: email, Kind: domain.Individual, IsEU: isEU, MarketingConsent: consent})
	if err == nil {
		return a.UUID, true, true, nil
	}
	if again, lerr := s.store.AccountByEmail(ctx, email); lerr == nil {
		return again.UUID, false, again.PasswordHash == "", nil
	}
	return "", false, false, err
}

// IsBusiness answers whether the e-mail's account buys as a business (a business account
// or a member of an organization) and its account id; no account is not an error.
func (s *Service) IsBusiness(ctx context.Context, email string) (isBiz bool, accountUUID string, err error) {
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return false, "", errs.Field("email", "Please enter your email address.")
	}
	a, err := s.store.AccountByEmail(ctx, email)
	if errs.CodeOf(err) == errs.NotFound {
		return false, "", nil
	}
	if err != nil {
		return false, "", err
	}
	p, err := s.store.Profile(ctx, a.UUID)
	if err != nil {
		return false, "", err
	}
	return a.Kind == domain.Business || len(p.Memberships) > 0, a.UUID, nil
}

// Profile answers an account's profile.
func (s *Service) Profile(ctx context.Context, accountUUID string) (domain.Profile, error) {
	return s.store.Profile(ctx, accountUUID)
}

// Visible answers the profile of id if the caller may see it: their own, or a member of an
// organization the caller administers. Anything else is NotFound, so ids cannot be probed.
// A group parent does not see its child's profile (ParentOf answers the tree link only).
func (s *Service) Visible(ctx context.Context, caller domain.Profile, id string) (domain.Profile, error) {
	if id == "" || id == "me" || id == caller.Account.UUID {
		return caller, nil
	}
	target, err := s.store.Profile(ctx, id)
	if err != nil {
		return target, err
	}
	return visibleTo(caller, target)
}

// ChildOf answers the account id when it is a child account of the caller (its group
// parent), NotFound otherwise. Spec 001 §7 grants the parent the reads its submit for the
// child needs (the subscription, the renewal price, the payment method: payments asks
// identity this through users/info); nothing of the child's profile goes with it.
func (s *Service) ChildOf(ctx context.Context, caller domain.Profile, id string) (domain.Account, error) {
	if caller.Account.UUID == "" || id == "" {
		return domain.Account{}, errs.E(errs.NotFound, "no such user")
	}
	target, err := s.store.Profile(ctx, id)
	if err != nil {
		return domain.Account{}, err
	}
	if target.Account.ParentUUID != caller.Account.UUID {
		return domain.Account{}, errs.E(errs.NotFound, "no such user")
	}
	return target.Account, nil
}

// visibleTo answers target when caller may see it (see Visible).
func visibleTo(caller, target domain.Profile) (domain.Profile, error) {
	for _, cm := range caller.Memberships {
		if !cm.IsAdmin() {
			continue
		}
		for _, tm := range target.Memberships {
			if tm.Org.UUID == cm.Org.UUID {
				return target, nil
			}
		}
	}
	return domain.Profile{}, errs.E(errs.NotFound, "no such user")
}

// UserQuery is a page request of the users list.
type UserQuery struct {
	Limit, Offset           int
	Query, Field, Direction string
}

// ListUsers lists the users of the organization the caller administers.
func (s *Service) ListUsers(ctx context.Context, caller domain.Profile, q UserQuery) (domain.UserPage, UserQuery, error) {
	var org *domain.Membership
	for i, m := range caller.Memberships {
		if m.IsAdmin() {
			org = &caller.Memberships[i]
			break
		}
	}
	if org == nil {
		return domain.UserPage{}, q, errs.E(errs.Forbidden, "Only organization administrators can list users.")
	}
	switch {
	case q.Limit <= 0:
		q.Limit = 20
	case q.Limit > 100:
		q.Limit = 100
	}
	q.Offset = max(q.Offset, 0)
	if q.Field != "" && q.Field != "email" && q.Field != "created" {
		return domain.UserPage{}, q, errs.Field("field", "field must be email or created")
	}
	if q.Direction != "" && q.Direction != "asc" && q.Direction != "desc" {
		return domain.UserPage{}, q, errs.Field("direction", "direction must be asc or desc")
	}
	page, err := s.store.ListMembers(ctx, org.Org.UUID, q.Query, q.Field, q.Direction, q.Limit, q.Offset)
	return page, q, err
}

// Preferences answers the caller's preferences.
func (s *Service) Preferences(ctx context.Context, accountUUID string) (map[string]any, error) {
	return s.store.Preferences(ctx, accountUUID)
}

// UpdatePreferences stores the caller's preferences: only the documented keys, each of its
// type (domain.ParsePreferences); a marketing consent change is recorded in the consent
// history.
func (s *Service) UpdatePreferences(ctx context.Context, accountUUID string, prefs map[string]any) (map[string]any, error) {
	p, err := domain.ParsePreferences(prefs)
	if err != nil {
		return nil, err
	}
	return s.store.SetPreferences(ctx, accountUUID, p, domain.ConsentByPreferences)
}
