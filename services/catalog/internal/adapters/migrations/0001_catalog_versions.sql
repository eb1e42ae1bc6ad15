-- Each catalogue data release is stored whole; the active version is the one activated last.
CREATE TABLE catalog_versions (
    version      text PRIMARY KEY,
    checksum     text NOT NULL,
    document     jsonb NOT NULL,
    loaded_at    timestamptz NOT NULL DEFAULT now(),
    activated_at timestamptz
);
CREATE INDEX catalog_versions_active ON catalog_versions (activated_at DESC) WHERE activated_at IS NOT NULL;
