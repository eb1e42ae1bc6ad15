-- The subscription of each account as checkout last reported it (subscription-changed
-- events): /buy/api/me's plan, entitlement and tracking flags are derived from it.
-- version orders the events of one subscription; an older or repeated one changes nothing.
CREATE TABLE subscription_entitlements (
	account_uuid    uuid PRIMARY KEY,
	subscription_id text NOT NULL,
	plan_code       text NOT NULL,
	add_ons         text[] NOT NULL,
	status          text NOT NULL,
	version         bigint NOT NULL,
	updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS inbox (
	consumer   text NOT NULL,
	event_id   text NOT NULL,
	topic      text NOT NULL,
	handled_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_handled_at ON inbox (handled_at);
