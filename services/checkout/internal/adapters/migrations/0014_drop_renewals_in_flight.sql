-- hangar:contract 2026.11: no statement uses this index since the renewals table became the work queue (docs/decisions/0001); only the Kafka scheduler before it scanned for expired jobs
-- The column it covers, renewals.enqueued_until, is dropped a release later: the release
-- before this one still clears it when auto-renew is switched.
DROP INDEX CONCURRENTLY IF EXISTS renewals_in_flight;
