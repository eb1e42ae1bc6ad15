// Package app holds identity's use cases: create account, log in and out, resolve
// sessions, the current user and organization reads, preferences, and the eligibility
// flows. It runs the domain rules over the store.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Policies are the tunable rules.
type Policies struct {
	Sessions domain.SessionPolicy
	Throttle domain.Throttle
	Codes    domain.CodePolicy
	Links    domain.LinkPolicy
	// HashConcurrency caps password hashes computed at once in this process (0: no cap);
	// HashWait is how long a login waits for a slot before it is told to retry.
	HashConcurrency int
	HashWait        time.Duration
	// HashPerAddress caps the slots one client address holds at once (0: no cap), so a
	// flood from one address cannot take every slot.
	HashPerAddress int
}

// Service runs identity's use cases.
type Service struct {
	hashSlots chan struct{}
	hashing   atomic.Int64 // logins waiting for a slot
	store     Store
	hasher    *domain.Hasher
	pol       Policies
	now       func() time.Time
	log       *slog.Logger
	// verifying, when set, runs while a login's password is checked with its hashing
	// slot held: a test seam, so a flood can hold its slots without timing.
	verifying func(ip string)

	addrMu sync.Mutex
	addrs  map[string]*addrSlots

	resetPerEmail Limiter
}

// New builds the service over store.
func New(store Store, hasher *domain.Hasher, pol Policies, now func() time.Time, log *slog.Logger) *Service {
	svc := &Service{store: store, hasher: hasher, pol: pol, now: now, log: log, addrs: map[string]*addrSlots{}}
	if pol.HashConcurrency > 0 {
		svc.hashSlots = make(chan struct{}, pol.HashConcurrency)
	}
	if svc.pol.HashWait <= 0 {
		svc.pol.HashWait = 5 * time.Second
	}
	return svc
}

// Request describes where a call came from.
type Request struct {
	IP, UserAgent string
	// Token is the session token the request carried, if any (revoked at login).
	Token string
}

// Login is a started session.
type Login struct {
	Token   string
	Account domain.Account
	Expires time.Time
}

// Throttled is the cause of a refused login; Wait says when to retry.
type Throttled struct{ Wait time.Duration }

func (t *Throttled) Error() string { return fmt.Sprintf("login throttled for %s", t.Wait) }

// MsgBadCredentials is the one answer for an unknown e-mail and a wrong password alike.
const MsgBadCredentials = "Invalid email address or password."

// Login checks credentials and starts a session, revoking the one the request came with.
// Unknown accounts cost a dummy hash verification and count as failures like wrong
// passwords, so neither the message, the timing nor the throttling tells them apart.
func (s *Service) Login(ctx context.Context, email, password string, req Request) (Login, error) {
	email = domain.NormalizeEmail(email)
	if email == "" || password == "" {
		return Login{}, errs.E(errs.Unauthorized, "%s", MsgBadCredentials)
	}
	now := s.now()
	th := s.pol.Throttle
	at := loginAttempt{th: th, email: email, ip: req.IP}
	// The attempt is counted (a token taken) atomically before the password is verified,
	// and before it waits for a hashing slot: a burst of concurrent guesses cannot all pass
	// a check made before any is counted, and a throttled one costs no hash.
	wait, err := s.reserveAttempt(ctx, at, now)
	if err != nil {
		return Login{}, err
	}
	if wait > 0 {
		wait = max(wait, time.Second)
		return Login{}, &errs.Error{Code: errs.Exhausted, Message: domain.ThrottledMessage(wait), Cause: &Throttled{Wait: wait}, RetryAfter: wait}
	}
	acct, err := s.store.AccountByEmail(ctx, email)
	if err != nil && errs.CodeOf(err) != errs.NotFound {
		return Login{}, err
	}
	ok, err := s.verifyFrom(ctx, req.IP, password, acct.PasswordHash) // empty hash: dummy verification
	if err != nil {
		return Login{}, err
	}
	if !ok {
		return Login{}, errs.E(errs.Unauthorized, "%s", MsgBadCredentials)
	}
	// The right password is not a failure: its tokens go back, and it ends this address's
	// count; the account's count from everywhere stays, so the owner's login does not reset
	// an attack still going on elsewhere.
	if err := s.store.Return(ctx, at.accountKey(), at.accountRule(), 1, now); err != nil {
		return Login{}, err
	}
	if err := s.store.Return(ctx, at.ipKey(), at.ipRule(), 1, now); err != nil {
		return Login{}, err
	}
	if err := s.store.Reset(ctx, at.pairKey()); err != nil {
		return Login{}, err
	}
	return s.startSession(ctx, acct, req)
}

// loginAttempt is one login's three failure buckets (domain.Throttle's keys and limits
// as the platform's rules): the account from this address, the account from everywhere,
// this address over every account.
type loginAttempt struct {
	th        domain.Throttle
	email, ip string
}

func (a loginAttempt) pairKey() string    { return a.th.AccountIPKey(a.email, a.ip) }
func (a loginAttempt) accountKey() string { return a.th.AccountKey(a.email) }
func (a loginAttempt) ipKey() string      { return a.th.IPKey(a.ip) }

// pairRule is PerAccountIP per window, with the burst cut to the under-attack limit: the
// same refill, so the bucket reads the same under either.
func (a loginAttempt) pairRule(underAttack bool) ratelimit.Rule {
	r := ratelimit.PerWindow(a.th.PerAccountIP, a.th.Window)
	r.Burst = a.th.PairLimit(underAttack)
	return r
}
func (a loginAttempt) accountRule() ratelimit.Rule {
	return ratelimit.PerWindow(a.th.PerAccount, a.th.Window)
}
func (a loginAttempt) ipRule() ratelimit.Rule { return ratelimit.PerWindow(a.th.PerIP, a.th.Window) }

// reserveAttempt counts a login attempt in its three buckets, or none and answers how
// long to wait. The account's bucket never refuses: it is counted first, and whether it
// fitted tells whether the account is under attack (the pair's limit). Then the pair's
// and the address's tokens are taken, each by one statement whose row lock orders
// concurrent attempts on any replica; a refused attempt gives back what it took.
func (s *Service) reserveAttempt(ctx context.Context, at loginAttempt, now time.Time) (time.Duration, error) {
	calm, _, err := s.store.Count(ctx, []string{at.accountKey()}, at.accountRule(), 1, now)
	if err != nil {
		return 0, err
	}
	pair := at.pairRule(!calm)
	ok, wait, err := s.store.Take(ctx, at.pairKey(), pair, 1, now)
	if err == nil && ok {
		if ok, wait, err = s.store.Take(ctx, at.ipKey(), at.ipRule(), 1, now); err == nil && !ok {
			err = s.store.Return(ctx, at.pairKey(), pair, 1, now)
		}
	}
	if err == nil && !ok {
		err = s.store.Return(ctx, at.accountKey(), at.accountRule(), 1, now)
	}
	if err != nil {
		return 0, err
	}
	if !ok {
		return wait, nil
	}
	return 0, nil
}

// verify checks a password while holding one of the process's hashing slots: each
// argon2id verification takes its memory parameter (19 MiB) for tens of milliseconds, so
// an unbounded burst of logins would take the process past its memory limit. A caller
// that cannot get a slot within its deadline (or hashWait) is told to retry.
func (s *Service) verify(ctx context.Context, password, hash string) (bool, error) {
	return s.verifyFrom(ctx, "", password, hash)
}

// verifyFrom is verify for a login from the client address ip.
func (s *Service) verifyFrom(ctx context.Context, ip, password, hash string) (bool, error) {
	release, err := s.hashSlotFor(ctx, ip)
	if err != nil {
		return false, err
	}
	defer release()
	if s.verifying != nil {
		s.verifying(ip)
	}
	return s.hasher.Verify(password, hash), nil
}

// hashSlot takes one of the process's password-hashing slots; call release when done.
func (s *Service) hashSlot(ctx context.Context) (release func(), err error) {
	return s.hashSlotFor(ctx, "")
}

// hashSlotFor is hashSlot for a request from the client address ip: it first takes one
// of that address's HashPerAddress places, so the logins of one address queue behind each
// other rather than for the process's slots, and other addresses keep the rest. Both
// waits share the one HashWait deadline.
func (s *Service) hashSlotFor(ctx context.Context, ip string) (release func(), err error) {
	if s.hashSlots == nil {
		return func() {}, nil
	}
	s.hashing.Add(1)
	defer s.hashing.Add(-1)
	wait := time.NewTimer(s.pol.HashWait)
	defer wait.Stop()
	leave := func() {}
	if ip != "" && s.pol.HashPerAddress > 0 {
		a := s.addressSlots(ip)
		if err := take(ctx, a, wait.C); err != nil {
			s.leaveAddress(ip, a)
			return nil, err
		}
		leave = func() { <-a; s.leaveAddress(ip, a) }
	}
	if err := take(ctx, s.hashSlots, wait.C); err != nil {
		leave()
		return nil, err
	}
	return func() { <-s.hashSlots; leave() }, nil
}

// take puts a token into slots, waiting until deadline fires (429 busy) or ctx ends.
func take(ctx context.Context, slots chan struct{}, deadline <-chan time.Time) error {
	select {
	case slots <- struct{}{}:
		return nil
	case <-deadline:
		return errs.Throttled(time.Second, "The service is busy. Please try again in a moment.")
	case <-ctx.Done():
		return errs.Wrap(errs.Unavailable, ctx.Err(), "the service is temporarily unavailable, please retry")
	}
}

// addressSlots answers the places of address ip, counting the caller as a user of them
// (leaveAddress gives that back; the last one out forgets the address).
func (s *Service) addressSlots(ip string) chan struct{} {
	s.addrMu.Lock()
	defer s.addrMu.Unlock()
	a, ok := s.addrs[ip]
	if !ok {
		a = &addrSlots{ch: make(chan struct{}, s.pol.HashPerAddress)}
		s.addrs[ip] = a
	}
	a.users++
	return a.ch
}

func (s *Service) leaveAddress(ip string, ch chan struct{}) {
	s.addrMu.Lock()
	defer s.addrMu.Unlock()
	if a, ok := s.addrs[ip]; ok && a.ch == ch {
		if a.users--; a.users == 0 {
			delete(s.addrs, ip)
		}
	}
}

// addrSlots are one client address's places in the hashing queue and how many logins
// use them now.
type addrSlots struct {
	ch    chan struct{}
	users int
}

// HashSlotsInUse answers how many password hashes are being computed now (for tests and
// the busy metric).
func (s *Service) HashSlotsInUse() int { return len(s.hashSlots) }

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
	acct, err := s.createAccount(ctx, domain.Account{Email: domain.NormalizeEmail(in.Email), Kind: domain.Individual,
		IsEU: in.IsEU, MarketingConsent: in.Consent}, in.Password)
	if err != nil {
		return Login{}, err
	}
	return s.startSession(ctx, acct, req)
}

// createAccount hashes the password and stores the account with its created event.
// Failures other than field errors answer the spec's fallback message.
func (s *Service) createAccount(ctx context.Context, a domain.Account, password string) (domain.Account, error) {
	if password != "" {
		release, err := s.hashSlot(ctx)
		if err != nil {
			return a, err
		}
		h, err := s.hasher.Hash(password)
		release()
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
	a, err := s.provisionPasswordless(ctx, domain.Account{Email: email, Kind: domain.Individual, IsEU: isEU, MarketingConsent: consent}, domain.Organization{}, nil)
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

// Visible answers the profile of id if the caller may see it: their own, or a member of
// an organization the caller administers. Anything else is NotFound, so ids cannot be
// probed.
func (s *Service) Visible(ctx context.Context, caller domain.Profile, id string) (domain.Profile, error) {
	if id == "" || id == "me" || id == caller.Account.UUID {
		return caller, nil
	}
	target, err := s.store.Profile(ctx, id)
	if err != nil {
		return target, err
	}
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
