-- Issue 17, part 2: the renewal pass fanned out over Kafka, outages, notices.

-- attempt numbers the charge attempts of a term (part of the order and payments idempotency
-- key): it moves on after a decline, or when an attempt's key was closed without a charge
-- (a processor outage the reconciler abandoned); never while an attempt may still be paid.
ALTER TABLE renewals ADD COLUMN attempt integer NOT NULL DEFAULT 1;
-- Processor outages and timeouts met (retried later, not counted as declines).
ALTER TABLE renewals ADD COLUMN outages integer NOT NULL DEFAULT 0;
-- A job for this row was published on the renewal-due topic and is in flight until then;
-- after that the scheduler publishes it again (a lost or dead-lettered job).
ALTER TABLE renewals ADD COLUMN enqueued_until timestamptz;
CREATE INDEX renewals_subscription ON renewals (subscription_id) WHERE status = 'due';

-- Notices sent once per subscription, term and kind (renewal-reminder, card-expiring).
CREATE TABLE renewal_notices (
	subscription_id uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
	term_end        timestamptz NOT NULL,
	kind            text NOT NULL,
	sent_at         timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (subscription_id, term_end, kind)
);

-- The stored card's expiry: the first day after its last valid month (NULL: unknown or
-- not a card). Known from the order's charge and from payments' payment-method-updated.
ALTER TABLE subscriptions ADD COLUMN card_expires_at timestamptz;

-- The scheduler scans card-paid, valid subscriptions by term end.
CREATE INDEX subscriptions_renewable ON subscriptions (term_end)
	WHERE valid AND lapsed_at IS NULL AND payment_method = 'CREDIT_CARD' AND payment_source = 'CREDIT_CARD';

-- The inbox of checkout's consumers (renewal jobs, payments' method updates):
-- kafka.InboxSchema.
CREATE TABLE IF NOT EXISTS inbox (
	consumer   text NOT NULL,
	event_id   text NOT NULL,
	topic      text NOT NULL,
	handled_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_handled_at ON inbox (handled_at);
