-- Gift certificate codes stored only as hashes (issue 41), expand step: the SHA-256 of the
-- code as typed (trimmed, upper-cased) and its last four characters for receipts. The
-- release that writes these looks certificates up by code_hash only; the rows it issues
-- hold the hash in hex in code (the key of the rows from before). 0020 removes the plain
-- codes of the rows issued before.
ALTER TABLE gift_certificates ADD COLUMN IF NOT EXISTS code_hash bytea, ADD COLUMN IF NOT EXISTS code_hint text NOT NULL DEFAULT '';
UPDATE gift_certificates SET code_hash = sha256(convert_to(code, 'UTF8')),
	code_hint = CASE WHEN length(code) >= 4 THEN '••••-••••-••••-' || right(code, 4) ELSE '••••' END
	WHERE code_hash IS NULL;
