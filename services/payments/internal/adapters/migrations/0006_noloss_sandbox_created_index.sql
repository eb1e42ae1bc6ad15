-- The processor's search by time window (0005): built without blocking the captures.
CREATE INDEX CONCURRENTLY IF NOT EXISTS sandbox_transactions_created ON sandbox_transactions (created_at);
