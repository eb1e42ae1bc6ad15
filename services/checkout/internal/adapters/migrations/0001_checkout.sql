-- Checkout's subscriptions (the state priced against; submit fills them in a later issue),
-- account balances, data-driven promotions with their redemptions, and gift certificates.
CREATE TABLE subscriptions (
	id                uuid PRIMARY KEY,
	account_id        uuid NOT NULL,
	email             text NOT NULL,
	name              text NOT NULL DEFAULT '',
	plan_code         text NOT NULL,
	add_ons           text[] NOT NULL,
	quantity          integer NOT NULL CHECK (quantity >= 1),
	currency          char(3) NOT NULL,
	price_in_cents    bigint NOT NULL CHECK (price_in_cents >= 0),
	term_start        timestamptz NOT NULL,
	term_end          timestamptz NOT NULL,
	payment_source    text NOT NULL DEFAULT 'CREDIT_CARD',
	payment_method    text NOT NULL DEFAULT 'CREDIT_CARD',
	billing_method    text NOT NULL DEFAULT 'TERM',
	licensing_method  text NOT NULL DEFAULT '',
	parent_account_id uuid,
	organization_id   uuid,
	military          boolean NOT NULL DEFAULT false,
	valid             boolean NOT NULL DEFAULT true,
	business_id       text NOT NULL DEFAULT '',
	billing_country   text NOT NULL DEFAULT '',
	billing_zip       text NOT NULL DEFAULT '',
	created_at        timestamptz NOT NULL DEFAULT now(),
	updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_account ON subscriptions (account_id);
CREATE INDEX subscriptions_email ON subscriptions (lower(email));

CREATE TABLE account_balances (
	account_id       uuid PRIMARY KEY,
	currency         char(3) NOT NULL,
	balance_in_cents bigint NOT NULL CHECK (balance_in_cents >= 0)
);

-- A promotion is data: kind percent (percent_bp basis points) or fixed (amount_in_cents in
-- currency); restrictions are NULL/empty/false when absent.
CREATE TABLE promotions (
	code              text PRIMARY KEY CHECK (code = upper(code)),
	kind              text NOT NULL CHECK (kind IN ('percent', 'fixed')),
	percent_bp        integer NOT NULL DEFAULT 0 CHECK (percent_bp BETWEEN 0 AND 10000),
	amount_in_cents   bigint NOT NULL DEFAULT 0 CHECK (amount_in_cents >= 0),
	currency          char(3),
	eligible_plans    text[] NOT NULL DEFAULT '{}',
	first_time_only   boolean NOT NULL DEFAULT false,
	applies_new       boolean NOT NULL DEFAULT true,
	applies_renewal   boolean NOT NULL DEFAULT false,
	applies_upgrade   boolean NOT NULL DEFAULT true,
	business_allowed  boolean NOT NULL DEFAULT false,
	min_amount_cents  bigint NOT NULL DEFAULT 0,
	valid_from        timestamptz,
	valid_until       timestamptz,
	max_redemptions   integer NOT NULL DEFAULT 0,
	notice            text NOT NULL DEFAULT '',
	notice_message    text NOT NULL DEFAULT '',
	notice_audience   text NOT NULL DEFAULT '',
	always_view       boolean NOT NULL DEFAULT false,
	remove_on_notice  boolean NOT NULL DEFAULT false,
	CHECK (kind <> 'fixed' OR currency IS NOT NULL)
);

CREATE TABLE promotion_redemptions (
	code        text NOT NULL REFERENCES promotions (code),
	account_id  uuid NOT NULL,
	redeemed_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (code, account_id)
);

CREATE TABLE gift_certificates (
	code             text PRIMARY KEY CHECK (code = upper(code)),
	currency         char(3) NOT NULL,
	balance_in_cents bigint NOT NULL CHECK (balance_in_cents >= 0),
	created_at       timestamptz NOT NULL DEFAULT now()
);
