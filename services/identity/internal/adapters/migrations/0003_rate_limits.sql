-- Shared token buckets of the anonymous doors (internal/platform/ratelimit.Schema, verbatim),
-- so their limits hold across identity's replicas.
CREATE TABLE rate_limits (
    key text PRIMARY KEY,
    tat bigint NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
