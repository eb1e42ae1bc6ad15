-- The scheduler publishes jobs for due renewals not in flight. With every row due at once
-- (renewal season) an index on next_attempt_at alone makes each batch skip the rows
-- already published; these partial indexes hold only the rows a batch wants.
CREATE INDEX renewals_unpublished ON renewals (next_attempt_at) WHERE status = 'due' AND enqueued_until IS NULL;
CREATE INDEX renewals_in_flight ON renewals (enqueued_until) WHERE status = 'due' AND enqueued_until IS NOT NULL;
