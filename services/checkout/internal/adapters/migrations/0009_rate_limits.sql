-- Shared token buckets of the e-mail look-ups (internal/platform/ratelimit.Schema,
-- verbatim), so their limit holds across checkout's replicas.
CREATE TABLE rate_limits (
    key text PRIMARY KEY,
    tat bigint NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
