-- Every change of an account's consents, for the record a consent must leave (who said
-- what, when, through which door, and what it was before): the account's own preferences,
-- a purchase's marketing checkbox (checkout's marketing-consent-given), an account created
-- with the consent given. previous is NULL when the account was created with it.
CREATE TABLE consent_history (
    id           bigserial PRIMARY KEY,
    account_uuid uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    consent      text NOT NULL,
    value        boolean NOT NULL,
    previous     boolean,
    source       text NOT NULL,
    changed_at   timestamptz NOT NULL
);
CREATE INDEX consent_history_account ON consent_history (account_uuid, id);
