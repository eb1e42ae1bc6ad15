-- Subscriptions as the last subscription-changed event left them: only the version is kept
-- here, so an older or redelivered event is recognised and ignored.
CREATE TABLE subscriptions (
    subscription_id text PRIMARY KEY,
    owner_id        text NOT NULL,
    version         bigint NOT NULL,
    changed_at      timestamptz NOT NULL,
    status          text NOT NULL
);

-- Grants: the licensed add-ons each active subscription holds (whole state per event). A
-- pool is the sum of an owner's grants of one add-on code whose term has not ended.
CREATE TABLE grants (
    subscription_id  text NOT NULL REFERENCES subscriptions (subscription_id) ON DELETE CASCADE,
    add_on_code      text NOT NULL,
    owner_id         text NOT NULL,
    organization_id  text NOT NULL DEFAULT '',
    account_id       text NOT NULL,
    licensing_method text NOT NULL,
    quantity         integer NOT NULL CHECK (quantity >= 0),
    is_plan          boolean NOT NULL DEFAULT false,
    term_start       timestamptz,
    term_end         timestamptz,
    PRIMARY KEY (subscription_id, add_on_code)
);
CREATE INDEX grants_owner ON grants (owner_id, add_on_code);

-- Assignments of one add-on of an owner to one target. An expired one (term lapsed, add-on
-- dropped, quantity lowered) stays as an expired allocation until assigned again or removed.
CREATE TABLE assignments (
    owner_id        text NOT NULL,
    add_on_code     text NOT NULL,
    target_type     text NOT NULL CHECK (target_type IN ('USER', 'TAIL')),
    target_id       text NOT NULL CHECK (target_id <> ''),
    state           text NOT NULL CHECK (state IN ('active', 'expired')),
    assigned_by     text NOT NULL DEFAULT '',
    assigned_at     timestamptz NOT NULL,
    expired_at      timestamptz,
    PRIMARY KEY (owner_id, add_on_code, target_type, target_id)
);
CREATE INDEX assignments_target ON assignments (owner_id, target_type, target_id);

-- Aircraft tails an owner has named (identity knows users; nobody else knows tails).
CREATE TABLE tails (
    owner_id   text NOT NULL,
    tail_id    text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (owner_id, tail_id)
);

-- Inbox: messages already handled, so a redelivered message is skipped.
CREATE TABLE inbox (
    message_id text PRIMARY KEY,
    topic      text NOT NULL,
    handled_at timestamptz NOT NULL DEFAULT now()
);

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
