package app

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Store is identity's storage as the use cases need it (adapters.Store in production).
// Each method is one transaction of its own. Where a use case decides inside that
// transaction, the method takes the decision as a function, run under the transaction's
// row locks: the events an account's creation publishes (from its new id), a code's check, a used link's events.
type Store interface {
	AccountStore
	SessionStore
	AttemptStore
	LinkStore
	OrganizationStore
	EligibilityStore
}

// AccountStore keeps accounts, their preferences, linked partner accounts and the
// subscription projection.
type AccountStore interface {
	// CreateAccount stores a with the events of its new id (outbox, same transaction);
	// a taken e-mail is a field error on username.
	CreateAccount(ctx context.Context, a domain.Account, events func(uuid string) ([]kafka.Event, error)) (string, error)
	// AccountByEmail answers NotFound for an unknown e-mail.
	AccountByEmail(ctx context.Context, email string) (domain.Account, error)
	Profile(ctx context.Context, uuid string) (domain.Profile, error)
	Preferences(ctx context.Context, accountUUID string) (map[string]any, error)
	// SetPreferences stores p and records a consent change in the consent history, as
	// made by source.
	SetPreferences(ctx context.Context, accountUUID string, p domain.Preferences, source string) (map[string]any, error)
	// Entitlement answers the account's subscription, ok false when checkout reported none.
	Entitlement(ctx context.Context, account string) (domain.Entitlement, bool, error)
	LinkedAccounts(ctx context.Context, accountUUID string) ([]domain.LinkedAccount, error)
	LinkAvionics(ctx context.Context, accountUUID, jeppAccountID string, at time.Time) (domain.LinkedAccount, error)
}

// SessionStore keeps sessions by their token's hash.
type SessionStore interface {
	// CreateSession stores a session and revokes the one of previous (the token the
	// request came with), in one transaction.
	CreateSession(ctx context.Context, hash []byte, accountUUID string, now, expires time.Time, ip, userAgent string, previous []byte) (string, error)
	SessionByHash(ctx context.Context, hash []byte) (domain.Session, error)
	TouchSession(ctx context.Context, id string, now time.Time) error
	RevokeSession(ctx context.Context, hash []byte, now time.Time) error
	// DeleteEndedSessions removes the sessions that ended before cutoff.
	DeleteEndedSessions(ctx context.Context, cutoff time.Time) (int64, error)
}

// AttemptStore counts login attempts per throttle key, shared by every replica: the
// platform's one rate limiter (ratelimit.PostgreSQL in identity's rate_limits table).
type AttemptStore interface {
	// Count counts n calls in rule's bucket of each key, refused or not, and answers
	// whether they fitted.
	Count(ctx context.Context, keys []string, rule ratelimit.Rule, n int, now time.Time) (ok bool, wait time.Duration, err error)
	// Take takes n tokens of key's bucket, or none and answers how long until one is free.
	Take(ctx context.Context, key string, rule ratelimit.Rule, n int, now time.Time) (ok bool, wait time.Duration, err error)
	// Return gives n tokens back to key's bucket.
	Return(ctx context.Context, key string, rule ratelimit.Rule, n int, now time.Time) error
	// Reset fills the buckets of keys again.
	Reset(ctx context.Context, keys ...string) error
	// BeginLogin counts a login attempt in its buckets (all or none, one statement) and
	// reads the e-mail's account, in one round trip; Found is false for an unknown e-mail.
	BeginLogin(ctx context.Context, b LoginBuckets, email string, now time.Time) (LoginStart, error)
	// FinishLogin is CreateSession with the bookkeeping of a right password in the same
	// transaction: the tokens of settle.Return given back, the buckets of settle.Forget
	// filled again.
	FinishLogin(ctx context.Context, ss NewSession, settle LoginSettle) (string, error)
}

// Bucket is one rate-limit bucket: its key and rule.
type Bucket struct {
	Key  string
	Rule ratelimit.Rule
}

// LoginBuckets are the buckets a login attempt is counted in (see the migration's
// login_attempt): Account (Key "": none) never refuses and, when it overflows, cuts
// Pair's burst to PairUnderAttack; Pair and IP (Key "": none) refuse.
type LoginBuckets struct {
	Account, Pair, IP Bucket
	PairUnderAttack   int
}

// LoginStart is a counted attempt and the account it names.
type LoginStart struct {
	OK      bool
	Wait    time.Duration
	Account domain.Account
	Found   bool
}

// LoginSettle is what a right password changes in the buckets.
type LoginSettle struct {
	Return []Bucket
	Forget []string
}

// NewSession is a session to store; Previous is the hash of the token the request came
// with (revoked).
type NewSession struct {
	Hash          []byte
	AccountUUID   string
	Now, Expires  time.Time
	IP, UserAgent string
	Previous      []byte
}

// LinkStore keeps the set-password links (their token's hash, never the token).
type LinkStore interface {
	// IssuePasswordLink stores l, ends the account's earlier open links and enqueues events.
	IssuePasswordLink(ctx context.Context, accountUUID string, l domain.NewLink, events []kafka.Event) error
	// PasswordLink answers the link of a token hash; domain.ErrLinkInvalid when unknown.
	PasswordLink(ctx context.Context, hash []byte) (domain.PasswordLink, error)
	// UsePasswordLink spends a usable link at now, sets the password, ends the account's
	// other links and revokes its sessions, with the link's events, in one transaction;
	// domain.ErrLinkInvalid (nothing changed) when the link is not usable.
	UsePasswordLink(ctx context.Context, hash []byte, now time.Time, passwordHash string, events func(domain.PasswordLink) ([]kafka.Event, error)) (domain.PasswordLink, error)
}

// OrganizationStore keeps organizations and their members.
type OrganizationStore interface {
	ListMembers(ctx context.Context, orgUUID, query, field, direction string, limit, offset int) (domain.UserPage, error)
	AddMember(ctx context.Context, orgUUID, accountUUID string, roles []domain.Role) error
	// CreateInvitation stores an invitation (its token's hash) with its events, ending the
	// earlier open invitations of its address to its organization.
	CreateInvitation(ctx context.Context, inv domain.Invitation, events []kafka.Event) error
	// Invitation answers the invitation of a token hash; domain.ErrInvitationInvalid when unknown.
	Invitation(ctx context.Context, hash []byte) (domain.Invitation, error)
	// AcceptInvitation spends a usable invitation at now: decide names the account that
	// accepts (or the new one to create), which joins the organization, in one
	// transaction; domain.ErrInvitationInvalid (nothing changed) when it is not usable.
	AcceptInvitation(ctx context.Context, hash []byte, now time.Time, decide func(domain.Invitation) (domain.Acceptance, error)) (domain.Invitation, string, error)
	// ProvisionOrganization answers the organization owned by ownerUUID's account,
	// creating it when there is none, under the owner's row lock.
	ProvisionOrganization(ctx context.Context, ownerUUID, name string, ownerRoles []domain.Role) (org domain.Organization, created bool, err error)
}

// EligibilityStore keeps the military codes and the association member checks.
type EligibilityStore interface {
	MilitaryDomains(ctx context.Context) ([]domain.DomainPattern, error)
	IssueCode(ctx context.Context, c domain.Code, now time.Time, maxPerHour int, hash func(id string) []byte, events []kafka.Event) error
	// CheckCode runs check on the address's code under its row lock and records the result.
	CheckCode(ctx context.Context, email string, now time.Time, check func(domain.Code) domain.CodeCheck) (domain.Code, domain.CodeCheck, error)
	MilitaryVerified(ctx context.Context, email string) (string, bool, error)
	AssociationMember(ctx context.Context, number, lastName string) (bool, error)
	RecordAssociationVerification(ctx context.Context, email, number string, at time.Time) error
}

// Inbox is what an event's handler writes, in the transaction in which the inbox consumer
// records the event (adapters.InTx): the writes commit with the event's inbox row, so a
// redelivered event changes nothing.
type Inbox interface {
	// PutEntitlements records subscription changes with the effect of recording them one
	// after another: for each account, its latest version wins.
	PutEntitlements(ctx context.Context, es []domain.AccountEntitlement) error
	// GiveMarketingConsent records the account's consent at givenAt unless the account set
	// its preference later; it answers whether it did (false for an unknown account).
	GiveMarketingConsent(ctx context.Context, accountUUID string, givenAt time.Time) (bool, error)
	// IssueWelcomeLinks stores the welcome link of each of links' accounts that is
	// password-less and was never welcomed, with the events events builds from its address
	// and kind; an unknown account, one with a password or one welcomed already gets nothing,
	// and an account named twice gets its first link.
	IssueWelcomeLinks(ctx context.Context, links []domain.AccountLink, events func(l domain.AccountLink, email string, kind domain.Kind) ([]kafka.Event, error)) error
}
