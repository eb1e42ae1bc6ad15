-- payments: charges (idempotent by key), refunds, the vault's display data, billing
-- profiles and card-reader sessions. No column ever holds a card number or CVV: cards are
-- kept as brand, last four digits, expiry and a keyed fingerprint.

CREATE TABLE charges (
	id               uuid PRIMARY KEY,
	-- One charge per key: concurrent duplicates wait on this index and then replay.
	idempotency_key  text NOT NULL UNIQUE,
	request_hash     bytea NOT NULL,
	status           text NOT NULL CHECK (status IN ('pending','authorized','captured','failed','voided','refunded','partially_refunded')),
	amount           bigint NOT NULL CHECK (amount > 0),
	currency         text NOT NULL,
	captured_amount  bigint NOT NULL DEFAULT 0,
	refunded_amount  bigint NOT NULL DEFAULT 0,
	customer_id      text NOT NULL,
	authorize_only   boolean NOT NULL DEFAULT false,
	method_token     text NOT NULL DEFAULT '',
	method_kind      text NOT NULL DEFAULT '',
	card_brand       text NOT NULL DEFAULT '',
	card_last4       text NOT NULL DEFAULT '',
	card_exp_month   int NOT NULL DEFAULT 0,
	card_exp_year    int NOT NULL DEFAULT 0,
	wallet_email     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	failure_code     text NOT NULL DEFAULT '',
	failure_message  text NOT NULL DEFAULT '',
	processor_tx_id  text NOT NULL DEFAULT '',
	reference        text NOT NULL DEFAULT '',
	description      text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL,
	CHECK (refunded_amount <= captured_amount AND captured_amount <= amount)
);
CREATE INDEX charges_customer ON charges (customer_id, created_at DESC);

CREATE TABLE refunds (
	id               uuid PRIMARY KEY,
	charge_id        uuid NOT NULL REFERENCES charges (id),
	idempotency_key  text NOT NULL,
	amount           bigint NOT NULL CHECK (amount > 0),
	reason           text NOT NULL DEFAULT '',
	processor_id     text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	UNIQUE (charge_id, idempotency_key)
);

CREATE TABLE payment_methods (
	token            text PRIMARY KEY,
	customer_id      text NOT NULL,
	kind             text NOT NULL,
	card_brand       text NOT NULL DEFAULT '',
	card_last4       text NOT NULL DEFAULT '',
	card_exp_month   int NOT NULL DEFAULT 0,
	card_exp_year    int NOT NULL DEFAULT 0,
	wallet_email     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	postal_code      text NOT NULL DEFAULT '',
	country          text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL
);
CREATE INDEX payment_methods_customer ON payment_methods (customer_id);

CREATE TABLE billing_profiles (
	account_id       text PRIMARY KEY,
	payment_method   text NOT NULL CHECK (payment_method IN ('CREDIT_CARD','PAYPAL','CHECK')),
	billing_period   text NOT NULL CHECK (billing_period IN ('TERM','QUARTERLY','MONTHLY')),
	method_token     text NOT NULL DEFAULT '',
	updated_at       timestamptz NOT NULL
);

CREATE TABLE reader_sessions (
	context_id       uuid PRIMARY KEY,
	reader           text NOT NULL,
	email            text NOT NULL,
	requested_by     text NOT NULL,
	status           text NOT NULL CHECK (status IN ('waiting','completed','failed','cancelled')),
	method_token     text NOT NULL DEFAULT '',
	cardholder_name  text NOT NULL DEFAULT '',
	message          text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	expires_at       timestamptz NOT NULL
);
CREATE INDEX reader_sessions_waiting ON reader_sessions (reader, created_at DESC) WHERE status = 'waiting';

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
