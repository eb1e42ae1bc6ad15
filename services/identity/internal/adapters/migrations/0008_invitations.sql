-- Invitations to join an organization (issue 41): an organization's administrator invites
-- an e-mail address; nothing is created for it until the person who reads the mail
-- accepts. Only the SHA-256 of the invitation's token is stored.
CREATE TABLE invitations (
    token_hash  bytea PRIMARY KEY,
    org_uuid    uuid NOT NULL REFERENCES organizations (uuid) ON DELETE CASCADE,
    email       text NOT NULL,
    roles       text[] NOT NULL,
    invited_by  uuid NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by uuid
);

CREATE INDEX invitations_open ON invitations (org_uuid, email) WHERE accepted_at IS NULL;
