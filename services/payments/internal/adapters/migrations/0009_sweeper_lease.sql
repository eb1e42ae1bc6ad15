-- The processor sweep's lease (internal/platform/lease): one replica sweeps at a time, on a
-- lease that ends on the database's clock and a fencing token that every takeover raises.
-- The sweeper checks its token where it acts (before a refund or void at the processor,
-- and in the transaction that records an adopted charge), so a sweeper paused past its
-- lease acts on nothing its successor has settled.
CREATE TABLE IF NOT EXISTS sweeper_leases (
    name        text PRIMARY KEY,
    lease_until timestamptz NOT NULL DEFAULT '-infinity',
    fence       bigint NOT NULL DEFAULT 0
);
INSERT INTO sweeper_leases (name) VALUES ('processor') ON CONFLICT (name) DO NOTHING;
