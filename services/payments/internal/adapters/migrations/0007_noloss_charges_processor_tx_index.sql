-- The sweeper asks which of the processor's transactions have a charge (0005): built
-- without blocking the charges.
CREATE INDEX CONCURRENTLY IF NOT EXISTS charges_processor_tx ON charges (processor_tx_id) WHERE processor_tx_id <> '';
