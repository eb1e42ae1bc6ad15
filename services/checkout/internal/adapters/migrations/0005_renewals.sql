-- Issue 17, the renewal engine. One row per subscription and term: the row's primary key is
-- the exactly-once guard (the pass claims it with INSERT … ON CONFLICT DO NOTHING, workers
-- take due rows with FOR UPDATE SKIP LOCKED and a lease), and its attempt number is part of
-- the payments idempotency key, so a crash or a second pass never charges a term twice.
CREATE TABLE renewals (
	subscription_id   uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
	term_end          timestamptz NOT NULL,
	-- due (to charge, maybe after declines), renewed, lapsed, ending (auto-renew off:
	-- not charged, the subscriber told once), superseded (the term moved meanwhile).
	status            text NOT NULL DEFAULT 'due',
	-- Declines so far; the attempt in progress is attempts + 1.
	declines          integer NOT NULL DEFAULT 0,
	next_attempt_at   timestamptz NOT NULL,
	lease_until       timestamptz,
	first_declined_at timestamptz,
	last_failure_code text NOT NULL DEFAULT '',
	last_failure_msg  text NOT NULL DEFAULT '',
	invoice_id        uuid,
	created_at        timestamptz NOT NULL DEFAULT now(),
	updated_at        timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (subscription_id, term_end)
);
CREATE INDEX renewals_due ON renewals (next_attempt_at) WHERE status = 'due';

-- The vaulted payments method a renewal charges (payments' token, never card data).
ALTER TABLE subscriptions ADD COLUMN payment_method_token text NOT NULL DEFAULT '';
-- Set when the subscription lapsed after the last renewal retry.
ALTER TABLE subscriptions ADD COLUMN lapsed_at timestamptz;
