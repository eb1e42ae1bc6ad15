-- The processor's look-up of its transactions (issue 30): a real gateway lets a merchant
-- search its transactions by idempotency key and by time window, and keeps the metadata the
-- merchant sent with each (Stripe's metadata, Braintree's custom fields). Payments sends the
-- charge's key and request hash as metadata, so a capture whose charge row died with
-- payments' transaction can be adopted from the processor's record alone.
ALTER TABLE sandbox_transactions ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
CREATE INDEX sandbox_transactions_created ON sandbox_transactions (created_at);

-- The sweeper asks which of the processor's transactions have a charge.
CREATE INDEX charges_processor_tx ON charges (processor_tx_id) WHERE processor_tx_id <> '';
