package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// VelocityRule is the card-testing rule (issue 26, after Stripe Radar's velocity rules):
// Declines declined card attempts within Window by one client address (an IPv6 client by
// its /64), session, card, or — when that account's own session made them — account or
// e-mail, and that subject's card attempts (tokenisations, charges, verifications) are
// refused (429 with Retry-After) until the window ends. Zero Declines: no rule.
//
// A refusal lands on the attempt's maker only (issue 41): an order that names a customer's
// e-mail, or is made for their account, from a session that is not theirs counts against
// that session, its address and its card, never against the customer named (before, five
// declined anonymous gift orders naming a customer kept that customer from paying).
//
// Past Declines an attempt that passed human verification (auth.Client.Human: checkout's
// card payments and this service's own card routes verify before they charge, when human
// verification is on) goes on until HumanDeclines: where verification is on, the limit
// asks a buyer behind a busy address for the widget's tick first and refuses only after
// that. HumanDeclines at most Declines: no attempt goes on past Declines.
type VelocityRule struct {
	Declines      int
	HumanDeclines int
	Window        time.Duration
	// TrustedProxies: how many proxies append to X-Forwarded-For before the public routes
	// (auth.ClientIP); checkout's calls forward the client instead (auth.OutgoingClient).
	TrustedProxies int
}

// Velocity is the card-testing rule applied to one card attempt (a charge, a verification,
// a tokenisation): the attempt is refused while any of its subjects (Keys: the client's
// address, its session, the account, the card's fingerprint, the e-mail) has Max declines
// or more in the current window, and a decline counts once for each subject. Keys may grow
// while the attempt runs (the processor names the declined card's fingerprint).
type Velocity struct {
	Keys []string
	Max  int
	// Hard is the limit of an attempt that passed human verification (Human); at most Max:
	// none past Max.
	Hard   int
	Human  bool
	Window time.Duration
	Now    time.Time
	// Reached: the subjects a charge's decline brought to the limit, set by Store.Charge
	// as it records the decline with the charge's commit (nil: none).
	Reached *LimitedError
}

// Limit answers the declines at which this attempt is refused: Hard for a human-verified
// attempt, else Max.
func (v *Velocity) Limit() int {
	if v.Human && v.Hard > v.Max {
		return v.Hard
	}
	return v.Max
}

// Top reports whether Limit is the rule's last limit: a refusal there holds for every
// attempt of its subjects, verified or not (what the tokenisation's cache may learn).
func (v *Velocity) Top() bool { return v.Limit() >= v.Hard }

// Add adds subjects to the attempt (empty ones are skipped).
func (v *Velocity) Add(keys ...string) {
	for _, k := range keys {
		if k != "" && !slices.Contains(v.Keys, k) {
			v.Keys = append(v.Keys, k)
		}
	}
}

// LimitedError refuses an attempt of a subject past its declines until Until. Keys are
// the attempt's subjects that are past the rule.
type LimitedError struct {
	Until time.Time
	Keys  []string
	// Top: the keys reached the rule's last limit (Velocity.Top), so even an attempt that
	// passed human verification is refused.
	Top bool
}

func (e *LimitedError) Error() string {
	return "card attempts limited until " + e.Until.Format(time.RFC3339)
}

// Outcomes of a card attempt (hangar_payments_card_attempts_total).
const (
	attemptApproved = "approved"
	attemptDeclined = "declined"
	attemptLimited  = "limited"
)

// MsgCardAttemptsLimited answers an attempt past the rule: no word on why a card failed.
const MsgCardAttemptsLimited = "Too many declined card attempts. Please try again in %d minutes."

// MsgCardNotVerified answers every declined verification of the payment-method update and
// the card reader, whatever the processor's reason (issue 41: "Do Not Honor", "Insufficient
// Funds", "Expired Card" or a CVV mismatch per card made the update a card checker). The
// reason is logged, never answered.
const MsgCardNotVerified = "This card could not be verified. Please check its details or use another card."

// NewAttemptsMetric registers hangar_payments_card_attempts_total{outcome} on reg: the
// card-testing alert (HangarCardTestingSpike) watches its decline and refusal rates.
func NewAttemptsMetric(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_payments_card_attempts_total",
		Help: "Card attempts (charges with a card, card verifications, tokenisations refused by the card-testing rule) by outcome: approved, declined, limited."},
		[]string{"outcome"})
	for _, o := range []string{attemptApproved, attemptDeclined, attemptLimited} {
		c.WithLabelValues(o)
	}
	if reg == nil {
		return c, nil
	}
	return c, reg.Register(c)
}

func (s *Service) countAttempt(outcome string) {
	if s.pol.Attempts != nil {
		s.pol.Attempts.WithLabelValues(outcome).Inc()
	}
}

// attempt answers the rule of a card attempt for account and e-mail by the request in
// ctx. forwarded: the call comes from another service (checkout), which passes the client
// on (auth.ForwardedClient); without a forwarded client (a renewal, no buyer present) nil:
// there is no one to test cards. Otherwise the client of the public route itself. The
// account and the e-mail are subjects only when the client's session is that account's
// own (ownAttempt).
//
// human: the public route's request passed human verification (the forwarded client says
// so itself).
func (s *Service) attempt(ctx context.Context, forwarded, human bool, account, email string) *Velocity {
	r := s.pol.Velocity
	if r.Declines <= 0 {
		return nil
	}
	var c auth.Client
	if forwarded {
		var ok bool
		if c, ok = auth.ForwardedClient(ctx); !ok {
			return nil
		}
	} else {
		c = auth.Client{Addr: auth.ClientIP(ctx, r.TrustedProxies), Session: auth.SessionRef(auth.Token(ctx)),
			Device: auth.DeviceRef(ctx), Human: human}
		if who, ok := auth.CallerFrom(ctx); ok {
			c.Account = who.AccountUUID
		}
	}
	v := s.velocity(c.Human)
	if c.Addr != "" {
		v.Add("addr:" + clientaddr.Key(c.Addr))
	}
	if c.Session != "" {
		v.Add("session:" + c.Session)
	}
	if c.Device != "" {
		v.Add("device:" + c.Device)
	}
	if ownAttempt(c, account) {
		v.Add("account:" + strings.ToLower(account))
		if email = strings.TrimSpace(email); email != "" {
			v.Add("email:" + strings.ToLower(email))
		}
	}
	return v
}

// velocity answers an attempt of the rule without subjects (human: it passed human
// verification).
func (s *Service) velocity(human bool) *Velocity {
	r := s.pol.Velocity
	return &Velocity{Max: r.Declines, Hard: max(r.HumanDeclines, r.Declines), Human: human, Window: r.Window, Now: s.now()}
}

// ownAttempt reports whether client's session is logged in to account: only then do the
// account and its e-mail answer for the attempt.
func ownAttempt(c auth.Client, account string) bool {
	return c.Account != "" && account != "" && strings.EqualFold(c.Account, account)
}

// card adds a card's fingerprint to the attempt's subjects.
func cardOf(v *Velocity, fingerprint string) {
	if v != nil && fingerprint != "" {
		v.Add("card:" + fingerprint)
	}
}

// limitedErr answers the refusal of an attempt past the rule, or err as it is.
func (s *Service) limitedErr(ctx context.Context, err error) error {
	var l *LimitedError
	if !errors.As(err, &l) {
		return err
	}
	s.countAttempt(attemptLimited)
	s.limits.learn(l)
	wait := max(l.Until.Sub(s.now()), time.Second)
	s.log.WarnContext(ctx, "card attempt refused: too many declines", "retry_after", wait.Round(time.Second).String())
	return errs.Throttled(wait, MsgCardAttemptsLimited, int((wait+time.Minute-1)/time.Minute))
}

// checkAttempt refuses an attempt that is not a charge past the rule (one read).
func (s *Service) checkAttempt(ctx context.Context, v *Velocity) error {
	if err := s.store.Velocity(ctx, v); err != nil {
		return s.limitedErr(ctx, err)
	}
	return nil
}

// declined counts a declined verification against the rule.
func (s *Service) declined(ctx context.Context, v *Velocity, fingerprint string) {
	s.countAttempt(attemptDeclined)
	cardOf(v, fingerprint)
	l, err := s.store.RecordDecline(ctx, v)
	if err != nil {
		s.log.WarnContext(ctx, "card decline not counted", "err", fmt.Sprint(err))
	}
	s.limits.learn(l)
}

// cachedAttempt refuses an attempt a subject of which this replica learnt is past the rule
// (no statement: the tokenisation's check).
func (s *Service) cachedAttempt(ctx context.Context, v *Velocity) error {
	if v == nil {
		return nil
	}
	if until, ok := s.limits.limited(v.Keys, s.now()); ok {
		return s.limitedErr(ctx, &LimitedError{Until: until})
	}
	return nil
}

// limitCache holds the subjects past the rule this replica saw, until their window ends
// (at most max; when full the ended ones go, then all: it is only a shortcut, the shared
// counts decide every charge and verification).
type limitCache struct {
	mu    sync.Mutex
	max   int
	until map[string]time.Time
}

func newLimitCache(max int) *limitCache {
	return &limitCache{max: max, until: map[string]time.Time{}}
}

func (c *limitCache) learn(l *LimitedError) {
	if l == nil || len(l.Keys) == 0 || !l.Top {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.until)+len(l.Keys) > c.max {
		now := time.Now()
		for k, u := range c.until {
			if u.Before(now) {
				delete(c.until, k)
			}
		}
		if len(c.until)+len(l.Keys) > c.max {
			clear(c.until)
		}
	}
	for _, k := range l.Keys {
		if l.Until.After(c.until[k]) {
			c.until[k] = l.Until
		}
	}
}

func (c *limitCache) limited(keys []string, now time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var until time.Time
	for _, k := range keys {
		if u, ok := c.until[k]; ok && u.After(now) && u.After(until) {
			until = u
		}
	}
	return until, !until.IsZero()
}

// chargeOutcome is a finished charge's outcome as an attempt.
func chargeOutcome(c domain.Charge) string {
	if c.Status == domain.Failed {
		return attemptDeclined
	}
	return attemptApproved
}
