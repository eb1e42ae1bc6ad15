-- Mail once (issue 30): a checkout-made account's welcome waits for the account's first
-- completed order, and a mail whose send may have reached the relay is never sent again.

-- welcome_gate: one row per account whose welcome or completed order was seen; its lock
-- (the upsert's) orders a welcome against the account's first order whichever event comes
-- first. ordered_at: the first completed order (NULL: none yet).
CREATE TABLE IF NOT EXISTS welcome_gate (
	account_uuid text PRIMARY KEY,
	ordered_at   timestamptz
);

-- held_mails: welcomes of accounts with no completed order yet, moved to messages by the
-- account's first order-completed event (in its inbox transaction). A buyer whose purchase
-- failed keeps his here: he never hears from a store he did not buy from.
CREATE TABLE IF NOT EXISTS held_mails (
	id           text PRIMARY KEY,
	account_uuid text NOT NULL,
	event_id     text NOT NULL,
	template     text NOT NULL,
	recipient    text NOT NULL,
	subject      text NOT NULL,
	text_body    text NOT NULL,
	html_body    text NOT NULL,
	trace        jsonb NOT NULL DEFAULT '{}',
	created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS held_mails_account ON held_mails (account_uuid);

-- handed_at: committed just before the mail is handed to the relay, cleared by a refusal.
-- A claim that finds it set (the sender died, or could not record the outcome) does not
-- send again: the relay may well have the mail already.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS handed_at timestamptz;
