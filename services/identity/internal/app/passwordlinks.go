package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Limiter takes a token for a key or answers the refusal (429 with Retry-After).
type Limiter interface {
	Allow(ctx context.Context, key string) error
}

// SetResetLimit throttles reset requests per e-mail (the per-address limit is one of the
// anonymous doors' limits): a script cannot fill one person's mailbox with resets from
// many addresses. The limit holds for known and unknown e-mails alike, so it tells
// nothing about which exist.
func (s *Service) SetResetLimit(perEmail Limiter) { s.resetPerEmail = perEmail }

// RequestPasswordReset e-mails the account of email a single-use link to choose a new
// password. The answer is the same whether or not there is an account: an unknown
// address gets no mail and no error, and it answers in the time a known one takes.
// Issuing a link writes (a commit waits for the WAL flush), so a known address took 7–9 ms
// longer and one request guessed right 62 % of the time; an unknown address now waits
// what issuing took lately (resetTiming) before it answers.
func (s *Service) RequestPasswordReset(ctx context.Context, email string) error {
	email = domain.NormalizeEmail(email)
	if email == "" {
		return errs.Field("email", "Please enter your email address.")
	}
	if !domain.ValidEmail(email) {
		return errs.Field("email", "Please enter a valid email address.")
	}
	if s.resetPerEmail != nil {
		// The limiter's table keeps a digest, not the address.
		sum := sha256.Sum256([]byte(email))
		if err := s.resetPerEmail.Allow(ctx, hex.EncodeToString(sum[:16])); err != nil {
			return err
		}
	}
	start := s.now()
	acct, err := s.store.AccountByEmail(ctx, email)
	if errs.CodeOf(err) == errs.NotFound {
		return s.resetTiming.pad(ctx, s.now().Sub(start))
	}
	if err != nil {
		return err
	}
	token, hash, err := domain.NewToken()
	if err != nil {
		return err
	}
	now := s.now()
	l := domain.NewLink{Hash: hash, Purpose: domain.LinkReset, CreatedAt: now, ExpiresAt: now.Add(s.pol.Links.TTL(domain.LinkReset))}
	evs, err := passwordLinkIssued(acct.UUID, acct.Email, acct.Kind, l, token)
	if err != nil {
		return err
	}
	if err := s.store.IssuePasswordLink(ctx, acct.UUID, l, evs); err != nil {
		return err
	}
	s.resetTiming.record(s.now().Sub(start))
	return nil
}

// timing keeps how long a path took lately (an exponentially weighted mean over about
// the last 8), so another path can answer in the same time.
type timing struct {
	mu    sync.Mutex
	mean  time.Duration
	pause func(ctx context.Context, d time.Duration) error
}

func (t *timing) record(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mean == 0 {
		t.mean = d
	} else {
		t.mean += (d - t.mean) / 8
	}
}

// pad waits what the recorded path takes beyond took.
func (t *timing) pad(ctx context.Context, took time.Duration) error {
	t.mu.Lock()
	d := t.mean - took
	t.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if t.pause != nil {
		return t.pause(ctx, d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Unavailable, ctx.Err(), "the service is temporarily unavailable, please retry")
	}
}

// provisionPasswordless creates a's account without a password, with its created event,
// in one batch. Its welcome link is not issued here: only when an order of the account
// completes (WelcomeAfterFirstOrders), so no link waits anywhere (notifications held the
// welcome, link and all, until the first order) for a purchase that may never complete.
func (s *Service) provisionPasswordless(ctx context.Context, a domain.Account) (domain.Account, error) {
	a.CreatedAt = s.now()
	id, err := s.store.CreateAccount(ctx, a, func(id string) ([]kafka.Event, error) { return accountCreated(id, a) })
	if err != nil {
		if errs.CodeOf(err) == errs.Invalid {
			return a, err
		}
		return a, errs.Wrap(errs.Internal, err, domain.MsgCreateAccountFailed)
	}
	a.UUID = id
	return a, nil
}

// WelcomeAfterFirstOrders issues the welcome links of the password-less accounts (created
// at checkout) of a batch of completed orders: the links' events go out with the inbox
// transaction of checkout's order-completed events, marked as after an order, so
// notifications mails them at once instead of holding them. An account that has a
// password, or was welcomed already (a later order, a redelivery), gets nothing; one named
// by several of the batch's orders gets one link; an order without an account is skipped.
func (s *Service) WelcomeAfterFirstOrders(ctx context.Context, inbox Inbox, accountUUIDs []string) error {
	now := s.now()
	links := make([]domain.AccountLink, 0, len(accountUUIDs))
	tokens := make(map[string]string, len(accountUUIDs))
	for _, id := range accountUUIDs {
		if _, seen := tokens[id]; id == "" || seen {
			continue
		}
		token, hash, err := domain.NewToken()
		if err != nil {
			return err
		}
		tokens[id] = token
		links = append(links, domain.AccountLink{AccountUUID: id, Link: domain.NewLink{Hash: hash, Purpose: domain.LinkWelcome,
			CreatedAt: now, ExpiresAt: now.Add(s.pol.Links.TTL(domain.LinkWelcome))}})
	}
	if len(links) == 0 {
		return nil
	}
	return inbox.IssueWelcomeLinks(ctx, links, func(al domain.AccountLink, email string, kind domain.Kind) ([]kafka.Event, error) {
		l := al.Link
		b, err := proto.Marshal(&eventsv1.PasswordLinkIssued{AccountUuid: al.AccountUUID, Email: email, Purpose: l.Purpose,
			Link: domain.LinkPath(l.Purpose, tokens[al.AccountUUID]), ExpiresAt: timestamppb.New(l.ExpiresAt), AccountKind: string(kind), AfterOrder: true})
		if err != nil {
			return nil, fmt.Errorf("encode welcome link: %w", err)
		}
		return []kafka.Event{{Topic: events.TopicPasswordLinkIssued, Key: al.AccountUUID, Payload: b}}, nil
	})
}

// SetPassword sets the password of the link's account and logs it in: the link is spent
// (single use), every other link of the account ends, every session of the account is
// revoked (a reset takes the account back from whoever had it), and a new session starts.
// A reset also tells the owner by e-mail. The login failures of the account from this
// address are forgotten: a reset always gets its owner back in.
func (s *Service) SetPassword(ctx context.Context, in domain.NewPasswordInput, req Request) (Login, error) {
	var l domain.PasswordLink
	if domain.PlausibleToken(in.Token) {
		var err error
		// A look-up before the hash: a dead link costs no password hashing.
		if l, err = s.store.PasswordLink(ctx, domain.HashToken(in.Token)); err != nil && errs.CodeOf(err) != errs.Invalid {
			return Login{}, err
		}
		if !l.Usable(s.now()) {
			return Login{}, domain.ErrLinkInvalid
		}
	}
	if err := in.Validate(l.Email); err != nil {
		return Login{}, err
	}
	h, err := s.hashPassword(ctx, req.IP, in.Password)
	if errs.CodeOf(err) == errs.Exhausted || errs.CodeOf(err) == errs.Unavailable {
		return Login{}, err
	}
	if err != nil {
		return Login{}, errs.Wrap(errs.Internal, err, "Your password could not be set. Please try again.")
	}
	now := s.now()
	l, err = s.store.UsePasswordLink(ctx, domain.HashToken(in.Token), now, h, func(l domain.PasswordLink) ([]kafka.Event, error) {
		if l.Purpose != domain.LinkReset {
			return nil, nil
		}
		b, err := proto.Marshal(&eventsv1.PasswordChanged{AccountUuid: l.AccountUUID, Email: l.Email, ChangedAt: timestamppb.New(now)})
		if err != nil {
			return nil, fmt.Errorf("encode password changed: %w", err)
		}
		return []kafka.Event{{Topic: events.TopicPasswordChanged, Key: l.AccountUUID, Payload: b}}, nil
	})
	if err != nil {
		return Login{}, err
	}
	if err := s.store.Reset(ctx, s.pol.Throttle.AccountIPKey(l.Email, req.IP)); err != nil {
		// The password is set; the owner can still log in from elsewhere or wait.
		s.log.WarnContext(ctx, "clear login failures after a password link failed", "err", err.Error())
	}
	acct, err := s.store.AccountByEmail(ctx, l.Email)
	if err != nil {
		return Login{}, err
	}
	return s.startSession(ctx, acct, req)
}

// passwordLinkIssued is the event that has the link mailed. The token is only in the
// link; it is never logged.
func passwordLinkIssued(accountUUID, email string, kind domain.Kind, l domain.NewLink, token string) ([]kafka.Event, error) {
	b, err := proto.Marshal(&eventsv1.PasswordLinkIssued{AccountUuid: accountUUID, Email: email, Purpose: l.Purpose,
		Link: domain.LinkPath(l.Purpose, token), ExpiresAt: timestamppb.New(l.ExpiresAt), AccountKind: string(kind)})
	if err != nil {
		return nil, fmt.Errorf("encode password link: %w", err)
	}
	return []kafka.Event{{Topic: events.TopicPasswordLinkIssued, Key: accountUUID, Payload: b}}, nil
}
