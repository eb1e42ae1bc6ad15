-- Terms paid before the current one that still have unused days: an early renewal stacks
-- the new term after the current one, whose unused days stay paid for (issue 27: a change
-- then credits all of them, not one term's worth). [{start, end, priceInCents}]
ALTER TABLE subscriptions ADD COLUMN earlier_terms jsonb NOT NULL DEFAULT '[]';
