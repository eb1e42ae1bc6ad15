-- Fencing tokens (issue 39): the newest claim token a caller has charged or looked a key up
-- with. A charge under an older token is refused, so a caller paused past its claim cannot
-- charge a key its reconciler (or a retry) has taken over. Written in the charge's own
-- transaction (adapters.Store.Charge); no row for callers that send no token.
CREATE TABLE IF NOT EXISTS charge_fences (
    idempotency_key text PRIMARY KEY,
    fence bigint NOT NULL
);
