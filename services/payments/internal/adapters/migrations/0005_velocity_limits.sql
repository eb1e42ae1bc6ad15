-- Card testing (issue 26): declined card attempts counted per subject (client address,
-- session, account, card fingerprint, e-mail) in a fixed window. Every replica shares the
-- counts; a charge reads them in its own first round trip and writes a decline's in its
-- commit (adapters/velocity.go).
CREATE TABLE card_velocity (
    key text PRIMARY KEY,
    declines integer NOT NULL,
    window_start timestamptz NOT NULL
);
CREATE INDEX card_velocity_window ON card_velocity (window_start);
