-- A held welcome keeps its link's expiry and its account's kind: released after its link
-- ran out (the first order came later), it is rendered again to point at "Forgot
-- password" instead of carrying a dead link. NULL: a welcome held before this column.
ALTER TABLE held_mails ADD COLUMN IF NOT EXISTS account_kind text NOT NULL DEFAULT '';
ALTER TABLE held_mails ADD COLUMN IF NOT EXISTS link_expires_at timestamptz;
