-- The sandbox card processor's own state (internal/gateway.Sandbox). A real processor keeps
-- nonces, its vault and its transactions on its side, shared by every replica that calls it;
-- the sandbox keeps them here, in tables of their own that nothing else in payments reads.
-- Never a card number or CVV: a card is its test-card outcome class (decided when it is
-- tokenised), brand, last four digits, expiry, cardholder and a keyed fingerprint.

CREATE TABLE sandbox_nonces (
	-- SHA-256 of the nonce: a leaked table cannot be replayed as nonces.
	token_hash       bytea PRIMARY KEY,
	kind             text NOT NULL,
	outcome          text NOT NULL,
	card_brand       text NOT NULL DEFAULT '',
	card_last4       text NOT NULL DEFAULT '',
	card_exp_month   int NOT NULL DEFAULT 0,
	card_exp_year    int NOT NULL DEFAULT 0,
	wallet_email     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	postal_code      text NOT NULL DEFAULT '',
	fingerprint      text NOT NULL,
	created_at       timestamptz NOT NULL,
	expires_at       timestamptz NOT NULL,
	-- Single use: consumed by UPDATE ... WHERE used_at IS NULL.
	used_at          timestamptz
);
CREATE INDEX sandbox_nonces_expiry ON sandbox_nonces (expires_at);

CREATE TABLE sandbox_methods (
	token            text PRIMARY KEY,
	customer_id      text NOT NULL,
	fingerprint      text NOT NULL,
	kind             text NOT NULL,
	outcome          text NOT NULL,
	card_brand       text NOT NULL DEFAULT '',
	card_last4       text NOT NULL DEFAULT '',
	card_exp_month   int NOT NULL DEFAULT 0,
	card_exp_year    int NOT NULL DEFAULT 0,
	wallet_email     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	postal_code      text NOT NULL DEFAULT '',
	country          text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL,
	-- The same card vaulted twice for a customer is the same method.
	UNIQUE (customer_id, fingerprint)
);

CREATE TABLE sandbox_transactions (
	id               text PRIMARY KEY,
	-- The caller's idempotency key (payments sends the charge id); NULL when none was sent.
	idempotency_key  text UNIQUE,
	status           text NOT NULL CHECK (status IN ('authorized','captured','voided','refused')),
	outcome          text NOT NULL,
	amount           bigint NOT NULL,
	currency         text NOT NULL,
	refunded         bigint NOT NULL DEFAULT 0,
	method_token     text NOT NULL DEFAULT '',
	method_kind      text NOT NULL,
	card_brand       text NOT NULL DEFAULT '',
	card_last4       text NOT NULL DEFAULT '',
	card_exp_month   int NOT NULL DEFAULT 0,
	card_exp_year    int NOT NULL DEFAULT 0,
	wallet_email     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	CHECK (refunded >= 0 AND refunded <= amount)
);

CREATE TABLE sandbox_refunds (
	transaction_id   text NOT NULL REFERENCES sandbox_transactions (id),
	idempotency_key  text NOT NULL,
	id               text NOT NULL UNIQUE,
	amount           bigint NOT NULL CHECK (amount > 0),
	created_at       timestamptz NOT NULL,
	PRIMARY KEY (transaction_id, idempotency_key)
);
