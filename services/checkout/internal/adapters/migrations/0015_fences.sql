-- Fencing tokens (issue 39): every claim or takeover of a submission or a renewal moves its
-- fence on, and each write of the holder is conditional on the fence it got, so a holder
-- that was paused past its lease cannot write (nor, through payments, charge) under a key
-- taken over meanwhile. The release before this one inserts submissions without it: its
-- claims are the first (1).
ALTER TABLE submissions ADD COLUMN IF NOT EXISTS fence bigint NOT NULL DEFAULT 1;
ALTER TABLE renewals ADD COLUMN IF NOT EXISTS fence bigint NOT NULL DEFAULT 0;
