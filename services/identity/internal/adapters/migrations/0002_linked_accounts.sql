-- Avionics partner accounts linked to a store account (spec 001 §3 "Linked partner
-- account"): the partner's account id and username, and whether the account's avionics
-- databases are linked to it.
CREATE TABLE linked_partner_accounts (
    account_uuid       uuid NOT NULL REFERENCES accounts (uuid) ON DELETE CASCADE,
    jepp_account_id    text NOT NULL,
    username           text NOT NULL,
    linked_avionics_at timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_uuid, jepp_account_id)
);
