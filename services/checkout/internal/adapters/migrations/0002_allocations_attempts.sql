-- Products allocated to users (addOnObjects with licensing method USER_ALLOCATION: they
-- cannot be toggled in the store), and the subscription's tail allocations (validate lists
-- those whose add-ons a change drops).
ALTER TABLE subscriptions ADD COLUMN allocated_add_ons text[] NOT NULL DEFAULT '{}';

CREATE TABLE allocations (
	subscription_id uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
	target_type     text NOT NULL CHECK (target_type <> ''),
	target_id       text NOT NULL CHECK (target_id <> ''),
	target_owner_id text NOT NULL DEFAULT '',
	add_on_codes    text[] NOT NULL,
	PRIMARY KEY (subscription_id, target_type, target_id)
);

-- Promo and gift code attempts per client and per account in fixed windows, counted here so
-- that every replica enforces one limit. Old windows are pruned by the refresh loop.
CREATE TABLE code_attempts (
	key          text NOT NULL,
	window_start timestamptz NOT NULL,
	count        integer NOT NULL CHECK (count > 0),
	PRIMARY KEY (key, window_start)
);
CREATE INDEX code_attempts_window ON code_attempts (window_start);
