-- Accounts. e-mail is stored normalised (trimmed, lower case) and is unique.
CREATE TABLE accounts (
    uuid              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email             text NOT NULL UNIQUE,
    -- argon2id in PHC format; empty: no password yet (created at checkout)
    password_hash     text NOT NULL DEFAULT '',
    kind              text NOT NULL CHECK (kind IN ('individual', 'business', 'group_parent', 'child')),
    parent_uuid       uuid REFERENCES accounts (uuid),
    fsp_admin_uuid    uuid,
    is_eu             boolean NOT NULL DEFAULT false,
    marketing_consent boolean NOT NULL DEFAULT false,
    military          boolean NOT NULL DEFAULT false,
    preferences       jsonb NOT NULL DEFAULT '{}',
    created_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'child') = (parent_uuid IS NOT NULL))
);

-- Per-account rights and features (employee, credit_card_admin, ...), as data.
CREATE TABLE account_flags (
    account_uuid uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    flag         text NOT NULL,
    PRIMARY KEY (account_uuid, flag)
);

-- Organizations (groups) with their own billing account, and their members' roles.
CREATE TABLE organizations (
    uuid         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text NOT NULL,
    account_uuid uuid NOT NULL UNIQUE REFERENCES accounts (uuid),
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE memberships (
    org_uuid     uuid NOT NULL REFERENCES organizations (uuid) ON DELETE CASCADE,
    account_uuid uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    roles        text[] NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_uuid, account_uuid)
);
CREATE INDEX memberships_account ON memberships (account_uuid);

-- Sessions: only the SHA-256 of the token is stored.
CREATE TABLE sessions (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    token_hash   bytea NOT NULL UNIQUE,
    account_uuid uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    client_ip    text NOT NULL DEFAULT '',
    user_agent   text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_account ON sessions (account_uuid) WHERE revoked_at IS NULL;
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Failed logins, counted in a sliding window per key (account+address, account, address).
-- In PostgreSQL rather than memory so every replica sees the same counts.
CREATE TABLE login_failures (
    id  bigserial PRIMARY KEY,
    key text NOT NULL,
    at  timestamptz NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);

-- Military e-mail domains (data, not code): a suffix on whole labels, "*" one label.
CREATE TABLE military_domains (
    pattern       text PRIMARY KEY,
    international boolean NOT NULL
);
INSERT INTO military_domains (pattern, international) VALUES
    ('mil', false),
    ('mil.*', true),
    ('mod.uk', true),
    ('forces.gc.ca', true),
    ('defence.gov.au', true),
    ('nzdf.mil.nz', true);

-- Verification codes: hashed, single use, expiring, with an attempt counter.
CREATE TABLE eligibility_codes (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email       text NOT NULL,
    program     text NOT NULL,
    code_hash   bytea NOT NULL,
    attempts    int NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    consumed_at timestamptz
);
CREATE INDEX eligibility_codes_email ON eligibility_codes (email, created_at DESC);

-- E-mail addresses that proved military eligibility.
CREATE TABLE military_verifications (
    email       text PRIMARY KEY,
    program     text NOT NULL,
    verified_at timestamptz NOT NULL
);

-- Aircraft-owner association member registry and the verifications made against it.
CREATE TABLE association_members (
    member_number text PRIMARY KEY,
    last_name     text NOT NULL
);
CREATE TABLE association_verifications (
    email         text NOT NULL,
    member_number text NOT NULL,
    verified_at   timestamptz NOT NULL,
    PRIMARY KEY (email, member_number)
);

-- The transactional outbox (kafka.OutboxSchema; a test keeps the two identical).
CREATE TABLE IF NOT EXISTS outbox (
	id           bigserial PRIMARY KEY,
	topic        text NOT NULL,
	key          bytea NOT NULL,
	payload      bytea NOT NULL,
	headers      jsonb NOT NULL DEFAULT '{}',
	created_at   timestamptz NOT NULL DEFAULT now(),
	published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
