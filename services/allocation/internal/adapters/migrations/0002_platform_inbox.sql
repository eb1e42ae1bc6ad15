-- The events backbone's inbox (kafka.InboxSchema; a test keeps the two identical) replaces
-- the service's first inbox table: the platform consumer records (consumer, event id).
DROP TABLE IF EXISTS inbox;
CREATE TABLE IF NOT EXISTS inbox (
	consumer   text NOT NULL,
	event_id   text NOT NULL,
	topic      text NOT NULL,
	handled_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_handled_at ON inbox (handled_at);
