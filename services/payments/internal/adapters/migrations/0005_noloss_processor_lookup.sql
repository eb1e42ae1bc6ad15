-- The processor's look-up of its transactions (issue 30): a real gateway lets a merchant
-- search its transactions by idempotency key and by time window, and keeps the metadata the
-- merchant sent with each (Stripe's metadata, Braintree's custom fields). Payments sends the
-- charge's key and request hash as metadata, so a capture whose charge row died with
-- payments' transaction can be adopted from the processor's record alone.
-- Its two indexes are built concurrently, each in a file of its own (0006, 0007).
ALTER TABLE sandbox_transactions ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
