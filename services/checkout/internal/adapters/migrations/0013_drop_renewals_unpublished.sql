-- hangar:contract 2026.11: no statement uses this index since the renewals table became the work queue (docs/decisions/0001); only the Kafka scheduler before it scanned for unpublished jobs
-- Kept up to date on every claim, lease and retry of a renewal for nothing. Concurrently
-- (alone in its file, outside a transaction): no lock that stops the workers' claims.
DROP INDEX CONCURRENTLY IF EXISTS renewals_unpublished;
