// Package adapters stores identity's accounts, organizations, sessions and
// eligibility state in the identity service's PostgreSQL database.
package adapters

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Migrations are the identity database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is identity's PostgreSQL storage.
type Store struct {
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
	// Login attempts are counted by the platform's limiter in rate_limits.
	*ratelimit.PostgreSQL
}

// NewStore uses pool, already migrated; prop carries trace context into outbox events.
func NewStore(pool *pgxpool.Pool, prop propagation.TextMapPropagator) *Store {
	return &Store{pool: pool, prop: prop, PostgreSQL: ratelimit.NewPostgreSQL(pool)}
}

// ErrEmailTaken is the Conflict of creating an account for a used e-mail.
var ErrEmailTaken = errs.Field("username", "An account with this email address already exists.")

// CreateAccount inserts a (with its flags) and answers its UUID; event builds the events to
// publish with it, in the same transaction.
func (s *Store) CreateAccount(ctx context.Context, a domain.Account, events func(uuid string) ([]kafka.Event, error)) (string, error) {
	return s.createAccount(ctx, a, events, nil)
}

// createAccount is CreateAccount; more, when set, queues further statements of the new
// account into the same batch (its welcome link).
func (s *Store) createAccount(ctx context.Context, a domain.Account, events func(uuid string) ([]kafka.Event, error), more func(b *pgx.Batch, id string)) (string, error) {
	// A.UUID is empty (a new id) except for the dev seed, whose demo accounts have the fixed
	// ids the other services' seeds use (one account id across the store). The id is chosen
	// here, so the account, its flags and its events go to PostgreSQL as one pipelined batch:
	// one round trip, one implicit transaction (a refused insert writes nothing after it),
	// instead of BEGIN, each statement and COMMIT in turn (a new buyer's account is created
	// on every first purchase).
	b, id, err := s.accountBatch(ctx, a, events, more)
	if err != nil {
		return "", err
	}
	if err := accountInsertErr(s.pool.SendBatch(ctx, b).Close()); err != nil {
		return "", err
	}
	return id, nil
}

// accountBatch queues the statements that store a, its events and more.
func (s *Store) accountBatch(ctx context.Context, a domain.Account, events func(uuid string) ([]kafka.Event, error), more func(b *pgx.Batch, id string)) (*pgx.Batch, string, error) {
	id := a.UUID
	if id == "" {
		id = uuid.NewString()
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO accounts (uuid, email, password_hash, kind, parent_uuid, is_eu, marketing_consent, military)
		VALUES ($8, $1, $2, $3, $4, $5, $6, $7)`,
		a.Email, a.PasswordHash, string(a.Kind), nullUUID(a.ParentUUID), a.IsEU, a.MarketingConsent, a.Military, id)
	for f, on := range a.Flags {
		if on {
			b.Queue(`INSERT INTO account_flags (account_uuid, flag) VALUES ($1, $2)`, id, f)
		}
	}
	if a.MarketingConsent {
		b.Queue(`INSERT INTO consent_history (account_uuid, consent, value, source, changed_at) VALUES ($1, $2, true, $3, now())`,
			id, domain.ConsentMarketing, domain.ConsentByAccountStart)
	}
	if more != nil {
		more(b, id)
	}
	if events != nil {
		evs, err := events(id)
		if err != nil {
			return nil, "", err
		}
		if err := kafka.QueueEnqueue(ctx, b, s.prop, evs...); err != nil {
			return nil, "", err
		}
	}
	return b, id, nil
}

// accountInsertErr answers a taken e-mail as ErrEmailTaken.
func accountInsertErr(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return ErrEmailTaken
	}
	if err != nil {
		return fmt.Errorf("insert account: %w", err)
	}
	return nil
}

func nullUUID(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const accountCols = `a.uuid::text, a.email, a.password_hash, a.kind, COALESCE(a.parent_uuid::text, ''), COALESCE(a.fsp_admin_uuid::text, ''),
	a.is_eu, a.marketing_consent, a.military, a.created_at,
	COALESCE((SELECT array_agg(flag ORDER BY flag) FROM account_flags f WHERE f.account_uuid = a.uuid), '{}')`

func scanAccount(row pgx.Row) (domain.Account, error) {
	var a domain.Account
	var kind string
	var flags []string
	err := row.Scan(&a.UUID, &a.Email, &a.PasswordHash, &kind, &a.ParentUUID, &a.FSPAdminUUID, &a.IsEU, &a.MarketingConsent, &a.Military, &a.CreatedAt, &flags)
	if err != nil {
		return a, err
	}
	a.Kind = domain.Kind(kind)
	a.Flags = map[string]bool{}
	for _, f := range flags {
		a.Flags[f] = true
	}
	return a, nil
}

var errNoAccount = errs.E(errs.NotFound, "no such account")

// AccountByEmail answers the account of a normalised e-mail; NotFound when there is none.
func (s *Store) AccountByEmail(ctx context.Context, email string) (domain.Account, error) {
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.email = $1`, email))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, errNoAccount
	}
	if err != nil {
		return a, fmt.Errorf("read account by email: %w", err)
	}
	return a, nil
}

// Profile answers an account with its memberships; NotFound when there is none.
func (s *Store) Profile(ctx context.Context, uuid string) (domain.Profile, error) {
	var p domain.Profile
	if !plausibleUUID(uuid) {
		return p, errNoAccount
	}
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.uuid = $1`, uuid))
	if errors.Is(err, pgx.ErrNoRows) {
		return p, errNoAccount
	}
	if err != nil {
		return p, fmt.Errorf("read account %s: %w", uuid, err)
	}
	p.Account = a
	rows, err := s.pool.Query(ctx, `SELECT o.uuid::text, o.name, o.account_uuid::text, m.roles,
			(SELECT count(*) FROM memberships x WHERE x.org_uuid = o.uuid)
		FROM memberships m JOIN organizations o ON o.uuid = m.org_uuid
		WHERE m.account_uuid = $1 ORDER BY m.created_at, o.name`, uuid)
	if err != nil {
		return p, fmt.Errorf("read memberships of %s: %w", uuid, err)
	}
	defer rows.Close()
	for rows.Next() {
		var m domain.Membership
		var roles []string
		if err := rows.Scan(&m.Org.UUID, &m.Org.Name, &m.Org.AccountUUID, &roles, &m.Org.MemberCount); err != nil {
			return p, fmt.Errorf("scan membership: %w", err)
		}
		for _, r := range roles {
			m.Roles = append(m.Roles, domain.Role(r))
		}
		p.Memberships = append(p.Memberships, m)
	}
	return p, rows.Err()
}

func plausibleUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
		default:
			return false
		}
	}
	return true
}

// ListMembers answers the members of org, filtered by a case-insensitive e-mail substring,
// sorted by field ("email" or "created") in direction ("asc" or "desc").
func (s *Store) ListMembers(ctx context.Context, orgUUID, query, field, direction string, limit, offset int) (domain.UserPage, error) {
	var page domain.UserPage
	order := "a.email"
	if field == "created" {
		order = "a.created_at"
	}
	if direction == "desc" {
		order += " DESC"
	}
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(query)) + "%"
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM memberships m JOIN accounts a ON a.uuid = m.account_uuid
		WHERE m.org_uuid = $1 AND a.email LIKE $2`, orgUUID, like).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count members: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT a.uuid::text FROM memberships m JOIN accounts a ON a.uuid = m.account_uuid
		WHERE m.org_uuid = $1 AND a.email LIKE $2 ORDER BY `+order+`, a.uuid LIMIT $3 OFFSET $4`, orgUUID, like, limit, offset)
	if err != nil {
		return page, fmt.Errorf("list members: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return page, fmt.Errorf("list members: %w", err)
	}
	for _, id := range ids {
		p, err := s.Profile(ctx, id)
		if err != nil {
			return page, err
		}
		page.Users = append(page.Users, p)
	}
	return page, nil
}

// CreateOrganization creates an organization whose billing account is accountUUID and
// makes that account its owner with roles.
func (s *Store) CreateOrganization(ctx context.Context, name, accountUUID string, ownerRoles []domain.Role) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO organizations (name, account_uuid) VALUES ($1, $2) RETURNING uuid::text`, name, accountUUID).Scan(&id); err != nil {
			return fmt.Errorf("insert organization: %w", err)
		}
		return addMember(ctx, tx, id, accountUUID, ownerRoles)
	})
	return id, err
}

// AddMember adds (or updates the roles of) a member.
func (s *Store) AddMember(ctx context.Context, orgUUID, accountUUID string, roles []domain.Role) error {
	return addMember(ctx, s.pool, orgUUID, accountUUID, roles)
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

const addMemberSQL = `INSERT INTO memberships (org_uuid, account_uuid, roles) VALUES ($1, $2, $3)
	ON CONFLICT (org_uuid, account_uuid) DO UPDATE SET roles = excluded.roles`

func roleStrings(roles []domain.Role) []string {
	rs := make([]string, len(roles))
	for i, r := range roles {
		rs[i] = string(r)
	}
	return rs
}

func addMember(ctx context.Context, db execer, orgUUID, accountUUID string, roles []domain.Role) error {
	_, err := db.Exec(ctx, addMemberSQL, orgUUID, accountUUID, roleStrings(roles))
	if err != nil {
		return fmt.Errorf("add member to %s: %w", orgUUID, err)
	}
	return nil
}

// Preferences answers an account's stored preferences.
func (s *Store) Preferences(ctx context.Context, accountUUID string) (map[string]any, error) {
	var raw []byte
	if err := s.pool.QueryRow(ctx, `SELECT preferences FROM accounts WHERE uuid = $1`, accountUUID).Scan(&raw); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, errNoAccount
		}
		return nil, fmt.Errorf("read preferences: %w", err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode preferences: %w", err)
	}
	return out, nil
}

// SetPreferences stores a typed preferences update and answers the stored preferences.
// The marketing preference is also the account's EU marketing consent (what eu_consent
// answers): it is set with the time of the change and recorded in the consent history
// with its previous value and source, all in one transaction.
func (s *Store) SetPreferences(ctx context.Context, accountUUID string, p domain.Preferences, source string) (map[string]any, error) {
	var out []byte
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var previous bool
		if err := tx.QueryRow(ctx, `SELECT marketing_consent FROM accounts WHERE uuid = $1 FOR UPDATE`, accountUUID).Scan(&previous); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errNoAccount
			}
			return fmt.Errorf("read consent: %w", err)
		}
		if v := p.MarketingNotificationsEnabled; v != nil {
			if _, err := tx.Exec(ctx, `UPDATE accounts SET marketing_consent = $2, marketing_consent_at = now(),
					preferences = preferences || jsonb_build_object('`+domain.PrefMarketing+`', $2::boolean)
				WHERE uuid = $1`, accountUUID, *v); err != nil {
				return fmt.Errorf("update preferences: %w", err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO consent_history (account_uuid, consent, value, previous, source, changed_at)
				VALUES ($1, $2, $3, $4, $5, now())`, accountUUID, domain.ConsentMarketing, *v, previous, source); err != nil {
				return fmt.Errorf("record consent: %w", err)
			}
		}
		if err := tx.QueryRow(ctx, `SELECT preferences FROM accounts WHERE uuid = $1`, accountUUID).Scan(&out); err != nil {
			return fmt.Errorf("read preferences: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := map[string]any{}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("decode preferences: %w", err)
	}
	return res, nil
}

// GiveMarketingConsent records in the inbox transaction that the account consented to marketing e-mail at
// givenAt (a purchase's checkbox): the consent and the marketingNotificationsEnabled
// preference become true, unless the account set its preference after givenAt. It answers
// whether the consent was recorded (false also for an unknown account).
func (t InboxTx) GiveMarketingConsent(ctx context.Context, accountUUID string, givenAt time.Time) (bool, error) {
	if !plausibleUUID(accountUUID) {
		return false, nil
	}
	// The previous value is read under the row lock the update takes, and the change is
	// recorded in the consent history in the same statement.
	tag, err := t.tx.Exec(ctx, `WITH prev AS (
			SELECT uuid, marketing_consent FROM accounts
			WHERE uuid = $1 AND (marketing_consent_at IS NULL OR marketing_consent_at < $2) FOR UPDATE),
		upd AS (
			UPDATE accounts a SET marketing_consent = true, marketing_consent_at = $2,
				preferences = a.preferences || '{"marketingNotificationsEnabled": true}'::jsonb
			FROM prev WHERE a.uuid = prev.uuid RETURNING a.uuid)
		INSERT INTO consent_history (account_uuid, consent, value, previous, source, changed_at)
		SELECT prev.uuid, $3, true, prev.marketing_consent, $4, $2 FROM prev JOIN upd USING (uuid)`,
		accountUUID, givenAt, domain.ConsentMarketing, domain.ConsentByPurchase)
	if err != nil {
		return false, fmt.Errorf("give marketing consent: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// SetPassword replaces an account's password hash.
func (s *Store) SetPassword(ctx context.Context, accountUUID, hash string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE accounts SET password_hash = $2 WHERE uuid = $1`, accountUUID, hash); err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}

// ---------------------------------------------------------------------------- sessions

// CreateSession stores a new session for the token hash and, in the same transaction,
// revokes the session of previous (the token the request came with), so a login never
// keeps a token that existed before it.
func (s *Store) CreateSession(ctx context.Context, hash []byte, accountUUID string, now, expires time.Time, ip, userAgent string, previous []byte) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if previous != nil {
			if _, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`, previous, now); err != nil {
				return fmt.Errorf("revoke previous session: %w", err)
			}
		}
		return tx.QueryRow(ctx, `INSERT INTO sessions (token_hash, account_uuid, created_at, last_seen_at, expires_at, client_ip, user_agent)
			VALUES ($1, $2, $3, $3, $4, $5, $6) RETURNING id::text`, hash, accountUUID, now, expires, ip, truncate(userAgent, 512)).Scan(&id)
	})
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return id, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

var errNoSession = errs.E(errs.Unauthorized, "not logged in")

// SessionByHash answers the session of a token hash; Unauthorized when there is none.
func (s *Store) SessionByHash(ctx context.Context, hash []byte) (domain.Session, error) {
	var ss domain.Session
	var revoked *time.Time
	err := s.pool.QueryRow(ctx, `SELECT id::text, account_uuid::text, created_at, last_seen_at, expires_at, revoked_at
		FROM sessions WHERE token_hash = $1`, hash).Scan(&ss.ID, &ss.AccountUUID, &ss.CreatedAt, &ss.LastSeenAt, &ss.ExpiresAt, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return ss, errNoSession
	}
	if err != nil {
		return ss, fmt.Errorf("read session: %w", err)
	}
	if revoked != nil {
		ss.RevokedAt = *revoked
	}
	return ss, nil
}

// TouchSession records a use of the session.
func (s *Store) TouchSession(ctx context.Context, id string, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2`, id, now); err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// RevokeSession ends the session of a token hash (no-op when there is none).
func (s *Store) RevokeSession(ctx context.Context, hash []byte, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`, hash, now); err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// DeleteEndedSessions removes sessions that ended before cutoff, for housekeeping.
func (s *Store) DeleteEndedSessions(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete ended sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// ---------------------------------------------------------------------------- eligibility

// MilitaryDomains answers the military e-mail domain rules, most specific first.
func (s *Store) MilitaryDomains(ctx context.Context) ([]domain.DomainPattern, error) {
	rows, err := s.pool.Query(ctx, `SELECT pattern, international FROM military_domains ORDER BY length(pattern) DESC, pattern`)
	if err != nil {
		return nil, fmt.Errorf("read military domains: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.DomainPattern, error) {
		var p domain.DomainPattern
		err := r.Scan(&p.Pattern, &p.International)
		return p, err
	})
}

// IssueCode stores a new code for c.Email unless maxPerHour codes were issued in the last
// hour (Exhausted), ends every earlier pending code of the address, and enqueues the
// events made by events(id) in the same transaction. The code's hash is computed by hash
// from the new row's id.
func (s *Store) IssueCode(ctx context.Context, c domain.Code, now time.Time, maxPerHour int, hash func(id string) []byte, events []kafka.Event) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Serialise issuing per address so the hourly limit holds under concurrent requests.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "code:"+c.Email); err != nil {
			return fmt.Errorf("lock address: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM eligibility_codes WHERE email = $1 AND created_at > $2`, c.Email, now.Add(-time.Hour)).Scan(&n); err != nil {
			return fmt.Errorf("count codes: %w", err)
		}
		if n >= maxPerHour {
			return errs.E(errs.Exhausted, "Too many verification codes were requested for this address. Please try again later.")
		}
		if _, err := tx.Exec(ctx, `UPDATE eligibility_codes SET expires_at = $2 WHERE email = $1 AND consumed_at IS NULL AND expires_at > $2`, c.Email, now); err != nil {
			return fmt.Errorf("end earlier codes: %w", err)
		}
		var id string
		if err := tx.QueryRow(ctx, `INSERT INTO eligibility_codes (email, program, code_hash, created_at, expires_at)
			VALUES ($1, $2, '', $3, $4) RETURNING id::text`, c.Email, c.Program, now, c.ExpiresAt).Scan(&id); err != nil {
			return fmt.Errorf("insert code: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE eligibility_codes SET code_hash = $2 WHERE id = $1`, id, hash(id)); err != nil {
			return fmt.Errorf("store code hash: %w", err)
		}
		return kafka.Enqueue(ctx, tx, s.prop, events...)
	})
}

// ErrNoCode is answered when an address has no code.
var ErrNoCode = errs.Field("code", domain.MsgCodeError)

// CheckCode locks the latest code of email, lets check judge the guess, and records the
// outcome in the same transaction: a wrong guess counts an attempt; a right one consumes
// the code, records the address as military-verified and marks its account, if any.
func (s *Store) CheckCode(ctx context.Context, email string, now time.Time, check func(domain.Code) domain.CodeCheck) (domain.Code, domain.CodeCheck, error) {
	var c domain.Code
	var res domain.CodeCheck
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var consumed *time.Time
		err := tx.QueryRow(ctx, `SELECT id::text, email, program, code_hash, attempts, expires_at, consumed_at
			FROM eligibility_codes WHERE email = $1 ORDER BY created_at DESC LIMIT 1 FOR UPDATE`, email).
			Scan(&c.ID, &c.Email, &c.Program, &c.Hash, &c.Attempts, &c.ExpiresAt, &consumed)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNoCode
		}
		if err != nil {
			return fmt.Errorf("read code: %w", err)
		}
		if consumed != nil {
			c.ConsumedAt = *consumed
		}
		res = check(c)
		switch res {
		case domain.CodeWrong:
			_, err = tx.Exec(ctx, `UPDATE eligibility_codes SET attempts = attempts + 1 WHERE id = $1`, c.ID)
		case domain.CodeOK:
			if _, err = tx.Exec(ctx, `UPDATE eligibility_codes SET consumed_at = $2 WHERE id = $1`, c.ID, now); err != nil {
				break
			}
			if _, err = tx.Exec(ctx, `INSERT INTO military_verifications (email, program, verified_at) VALUES ($1, $2, $3)
				ON CONFLICT (email) DO UPDATE SET program = excluded.program, verified_at = excluded.verified_at`, email, c.Program, now); err != nil {
				break
			}
			_, err = tx.Exec(ctx, `UPDATE accounts SET military = true WHERE email = $1`, email)
		}
		if err != nil {
			return fmt.Errorf("record code check: %w", err)
		}
		return nil
	})
	return c, res, err
}

// MilitaryVerified answers whether an address proved eligibility, and for which program.
func (s *Store) MilitaryVerified(ctx context.Context, email string) (string, bool, error) {
	var program string
	err := s.pool.QueryRow(ctx, `SELECT program FROM military_verifications WHERE email = $1`, email).Scan(&program)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read military verification: %w", err)
	}
	return program, true, nil
}

// AddAssociationMember adds a member to the registry (seed and tests).
func (s *Store) AddAssociationMember(ctx context.Context, number, lastName string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO association_members (member_number, last_name) VALUES ($1, $2)
		ON CONFLICT (member_number) DO UPDATE SET last_name = excluded.last_name`, number, lastName)
	if err != nil {
		return fmt.Errorf("add association member: %w", err)
	}
	return nil
}

// AssociationMember reports whether the registry holds the member number with that last
// name (case-insensitive, surrounding spaces ignored).
func (s *Store) AssociationMember(ctx context.Context, number, lastName string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM association_members
		WHERE member_number = $1 AND lower(last_name) = lower($2))`, strings.TrimSpace(number), strings.TrimSpace(lastName)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check association member: %w", err)
	}
	return ok, nil
}

// RecordAssociationVerification remembers that email verified a membership.
func (s *Store) RecordAssociationVerification(ctx context.Context, email, number string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO association_verifications (email, member_number, verified_at) VALUES ($1, $2, $3)
		ON CONFLICT (email, member_number) DO UPDATE SET verified_at = excluded.verified_at`, email, strings.TrimSpace(number), at)
	if err != nil {
		return fmt.Errorf("record association verification: %w", err)
	}
	return nil
}
