-- Gift certificates bought per subject and day (issue 41: caps follow the money), in USD
-- minor units whatever the order's currency: the buyer's and the recipient's e-mails, the
-- session and the client address are each a subject ("buyer:...", "addr:..."), reserved
-- together before the charge (adapters/gift_spend.go). gift_spend (per e-mail and
-- currency) is no longer written.
CREATE TABLE gift_cap_spend (
    subject text NOT NULL,
    day date NOT NULL,
    amount bigint NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (subject, day)
);
