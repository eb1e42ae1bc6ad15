-- Orders (issue 9): a submit is claimed by its idempotency key before anything is charged;
-- the order, its invoice lines, the subscription change and the outbox events are written
-- in one transaction after the charge. invoice numbers come from a sequence.

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

-- One row per Idempotency-Key. status: pending (claimed; charging or writing), completed
-- (order written), declined (the charge failed: nothing else written), abandoned (the
-- reconciler found no charge), refunded (charged but could not be fulfilled).
-- purchase is the priced order to write (JSON), kept so the reconciler can finish it.
CREATE TABLE submissions (
	key            text PRIMARY KEY,
	request_hash   text NOT NULL,
	kind           text NOT NULL,
	status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'declined', 'abandoned', 'refunded')),
	purchase       jsonb NOT NULL,
	charge_key     text NOT NULL,
	charge_id      text NOT NULL DEFAULT '',
	invoice_id     uuid,
	failure_code   text NOT NULL DEFAULT '',
	failure_msg    text NOT NULL DEFAULT '',
	lease_until    timestamptz NOT NULL,
	attempts       integer NOT NULL DEFAULT 1,
	created_at     timestamptz NOT NULL DEFAULT now(),
	updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submissions_pending ON submissions (lease_until) WHERE status = 'pending';

CREATE SEQUENCE invoice_numbers START 100001;

CREATE TABLE orders (
	invoice_id        uuid PRIMARY KEY,
	invoice_number    text NOT NULL UNIQUE,
	submission_key    text NOT NULL UNIQUE REFERENCES submissions (key),
	kind              text NOT NULL,
	account_id        uuid,
	organization_id   uuid,
	email             text NOT NULL,
	currency          char(3) NOT NULL,
	subtotal_in_cents bigint NOT NULL,
	tax_in_cents      bigint NOT NULL,
	total_in_cents    bigint NOT NULL CHECK (total_in_cents >= 0),
	credit_to_account_in_cents bigint NOT NULL DEFAULT 0,
	gift_credit_in_cents bigint NOT NULL DEFAULT 0,
	tax_label         text NOT NULL DEFAULT '',
	tax_jurisdiction  text NOT NULL DEFAULT '',
	reverse_charge    boolean NOT NULL DEFAULT false,
	third_party       boolean NOT NULL DEFAULT false,
	payment_method    text NOT NULL DEFAULT 'CREDIT_CARD',
	charge_id         text NOT NULL DEFAULT '',
	card_brand        text NOT NULL DEFAULT '',
	card_last4        text NOT NULL DEFAULT '',
	billing_name      text NOT NULL DEFAULT '',
	billing_country   text NOT NULL DEFAULT '',
	billing_zip       text NOT NULL DEFAULT '',
	business_id       text NOT NULL DEFAULT '',
	is_eu             boolean NOT NULL DEFAULT false,
	-- SHA-256 of the receipt token given to the browser that paid (its cookie).
	receipt_token_hash bytea,
	status            text NOT NULL DEFAULT 'paid',
	created_at        timestamptz NOT NULL
);
CREATE INDEX orders_account ON orders (account_id);

CREATE TABLE invoice_lines (
	invoice_id        uuid NOT NULL REFERENCES orders (invoice_id),
	position          integer NOT NULL,
	type              text NOT NULL,
	add_on_code       text NOT NULL DEFAULT '',
	plan_type         text NOT NULL DEFAULT '',
	description       text NOT NULL DEFAULT '',
	reason            text NOT NULL DEFAULT '',
	unit_amount_in_cents bigint NOT NULL,
	quantity          bigint NOT NULL,
	amount_in_cents   bigint NOT NULL,
	line_key          text NOT NULL DEFAULT '',
	bundle_add_on_code text NOT NULL DEFAULT '',
	bundle_item_type  text NOT NULL DEFAULT '',
	post_tax          boolean NOT NULL DEFAULT false,
	PRIMARY KEY (invoice_id, position)
);

-- Gift certificate debits and account credit movements, one row each, for the record.
CREATE TABLE balance_movements (
	id          bigserial PRIMARY KEY,
	invoice_id  uuid NOT NULL REFERENCES orders (invoice_id),
	kind        text NOT NULL CHECK (kind IN ('gift', 'account_debit', 'account_credit')),
	ref         text NOT NULL,
	amount_in_cents bigint NOT NULL,
	created_at  timestamptz NOT NULL DEFAULT now()
);

-- Subscriptions gain a version (events are ordered by it), auto-renew, the billing contact
-- and the order that last changed them.
ALTER TABLE subscriptions ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE subscriptions ADD COLUMN auto_renew boolean NOT NULL DEFAULT true;
ALTER TABLE subscriptions ADD COLUMN billing_name text NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN billing_address text NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN billing_address2 text NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN billing_city text NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN billing_state text NOT NULL DEFAULT '';
ALTER TABLE subscriptions ADD COLUMN last_invoice_id uuid;
ALTER TABLE subscriptions ADD COLUMN is_eu boolean NOT NULL DEFAULT false;
