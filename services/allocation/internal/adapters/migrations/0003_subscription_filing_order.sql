-- The order subscriptions were first filed in: an owner's pool of an add-on is its
-- first-filed live grant's term and licensing method (adapters.pooledGrants), so a later
-- subscription of another term or method never rewrites it. An update keeps the number.
ALTER TABLE subscriptions ADD COLUMN filed_seq bigserial;
