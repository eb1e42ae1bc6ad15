-- The welcome check (an account gets one welcome link: adapters.IssueWelcomeLinks) looks up
-- an account's welcome link, used or not; password_links_account holds unused links only,
-- so each batch of welcomes read the whole table once per account. Concurrently (alone in
-- its file, outside a transaction): no lock that stops logins and resets writing links.
CREATE INDEX CONCURRENTLY IF NOT EXISTS password_links_welcome ON password_links (account_uuid) WHERE purpose = 'welcome';
