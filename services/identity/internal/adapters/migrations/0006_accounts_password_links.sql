-- Single-use links to choose a password (issue 28): the welcome of an account created
-- without a password, and "forgot password". Only the SHA-256 of the token is stored.
CREATE TABLE password_links (
    token_hash   bytea PRIMARY KEY,
    account_uuid uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    purpose      text NOT NULL CHECK (purpose IN ('welcome', 'reset')),
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz
);

CREATE INDEX password_links_account ON password_links (account_uuid) WHERE used_at IS NULL;
