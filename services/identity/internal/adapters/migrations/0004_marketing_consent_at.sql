-- When the account's marketing consent was last set (by the account itself through its
-- preferences, or by a purchase's consent event), so a consent event that arrives late
-- never overrides a change the account made after the purchase.
ALTER TABLE accounts ADD COLUMN marketing_consent_at timestamptz;
