-- A limited promotion's redemption is reserved when the order's key is claimed, before the
-- card is charged (issue 42): the promotion row is locked while redemptions and the
-- reservations of pending submissions are counted, so a code whose last redemption is
-- taken is refused before any capture instead of captured and refunded at the write.
-- A reservation counts while its submission is pending; the order's write turns it into a
-- redemption, and a submission forgotten (nothing charged) takes its reservations along.
CREATE TABLE promotion_reservations (
	submission_key text NOT NULL REFERENCES submissions (key) ON DELETE CASCADE,
	code           text NOT NULL REFERENCES promotions (code),
	account_id     text NOT NULL DEFAULT '',
	PRIMARY KEY (submission_key, code)
);
CREATE INDEX promotion_reservations_code ON promotion_reservations (code);
