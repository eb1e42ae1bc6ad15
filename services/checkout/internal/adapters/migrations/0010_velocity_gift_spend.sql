-- Gift certificates bought per buyer and day (issue 26: a cash-out path for stolen cards),
-- reserved by a conditional update before the charge (adapters/gift_spend.go).
CREATE TABLE gift_spend (
    buyer text NOT NULL,
    day date NOT NULL,
    currency text NOT NULL,
    amount_in_cents bigint NOT NULL CHECK (amount_in_cents >= 0),
    PRIMARY KEY (buyer, day, currency)
);
