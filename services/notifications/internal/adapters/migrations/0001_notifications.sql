-- The notifications service's database: its inbox (kafka.InboxSchema, verbatim) and the
-- messages it sends. A message row is written in the inbox transaction of the event that
-- causes it, then sent by the SMTP worker; its id (event id + template) is the Message-ID.
CREATE TABLE IF NOT EXISTS inbox (
	consumer   text NOT NULL,
	event_id   text NOT NULL,
	topic      text NOT NULL,
	handled_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_handled_at ON inbox (handled_at);

CREATE TABLE IF NOT EXISTS messages (
	id              text PRIMARY KEY,
	event_id        text NOT NULL,
	template        text NOT NULL,
	recipient       text NOT NULL,
	subject         text NOT NULL,
	text_body       text NOT NULL,
	html_body       text NOT NULL,
	-- W3C trace context of the consumer span, so the send continues the event's trace.
	trace           jsonb NOT NULL DEFAULT '{}',
	created_at      timestamptz NOT NULL DEFAULT now(),
	attempts        int NOT NULL DEFAULT 0,
	next_attempt_at timestamptz NOT NULL DEFAULT now(),
	last_error      text NOT NULL DEFAULT '',
	sent_at         timestamptz,
	failed_at       timestamptz
);
CREATE INDEX IF NOT EXISTS messages_pending ON messages (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS messages_event ON messages (event_id);
