-- VaultPaymentMethod: a nonce stored for a customer without a charge (a zero-total order
-- keeps its card for the renewal). One row per idempotency key, inserted pending and
-- committed only with the processor's answer (vaulted or declined), so a retry of the key
-- replays it. Like charges, no card number or CVV: the method is its token, brand, last
-- four digits and expiry.
CREATE TABLE vaults (
	id               uuid PRIMARY KEY,
	-- One vault per key: concurrent duplicates wait on this index and then replay.
	idempotency_key  text NOT NULL UNIQUE,
	request_hash     bytea NOT NULL,
	status           text NOT NULL CHECK (status IN ('pending','vaulted','declined')),
	customer_id      text NOT NULL,
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
	reference        text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL,
	updated_at       timestamptz NOT NULL
);
CREATE INDEX vaults_customer ON vaults (customer_id, created_at DESC);

-- The sandbox processor's record of vault requests by the caller's idempotency key (payments
-- sends a key derived from the vault's): a retry after payments lost its answer (crashed
-- after the processor vaulted) replays the outcome instead of refusing the spent nonce.
CREATE TABLE sandbox_vaults (
	idempotency_key  text PRIMARY KEY,
	status           text NOT NULL CHECK (status IN ('vaulted','refused')),
	outcome          text NOT NULL DEFAULT '',
	failure_code     text NOT NULL DEFAULT '',
	failure_message  text NOT NULL DEFAULT '',
	method_token     text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL
);
