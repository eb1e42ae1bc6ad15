-- Mail leases on the database clock with fencing tokens (internal/platform/lease): a
-- claim or takeover sets lease_until on the database's clock and raises fence; a sender's
-- hand-over mark, its "sent" record, a retry, a give-up and a put-back all carry the
-- token they got, so a sender paused past its lease (another sender took the mail over)
-- neither sends the mail again nor records anything about it.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS lease_until timestamptz;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS fence bigint NOT NULL DEFAULT 0;
