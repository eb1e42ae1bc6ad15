-- hangar:contract 2026.12: since 2026.12 checkout reads and debits gift certificates by code_hash, names them in the ledger by id and in invoice lines and submissions by their hash
-- Issue 41: gift certificate codes were stored in plain text. The rows issued before 0018
-- keep only the hash of their code (in code, in hex, as new rows do); the ledger names the
-- certificate by its id, invoice lines by the masked code and the hash, and the priced
-- orders kept for the reconciler by the hash.
UPDATE gift_certificates SET code_hash = sha256(convert_to(code, 'UTF8')),
	code_hint = CASE WHEN length(code) >= 4 THEN '••••-••••-••••-' || right(code, 4) ELSE '••••' END
	WHERE code_hash IS NULL;
UPDATE balance_movements m SET ref = g.id::text FROM gift_certificates g
	WHERE m.kind = 'gift' AND m.ref = g.code AND g.code <> upper(encode(g.code_hash, 'hex'));
UPDATE invoice_lines l SET description = 'Gift certificate ' || g.code_hint,
	reason = replace(l.reason, g.code, g.code_hint),
	line_key = 'GIFT_CERTIFICATE_DISCOUNT:' || encode(g.code_hash, 'hex')
	FROM gift_certificates g
	WHERE l.type = 'GIFT_CERTIFICATE_DISCOUNT' AND l.line_key = 'GIFT_CERTIFICATE_DISCOUNT:' || g.code AND g.code <> upper(encode(g.code_hash, 'hex'));
UPDATE submissions SET purchase = jsonb_set(purchase, '{purchase,gifts}', (
	SELECT jsonb_agg(CASE WHEN d ? 'code' THEN jsonb_build_object('ref', encode(sha256(convert_to(upper(btrim(d->>'code')), 'UTF8')), 'hex'),
		'amountInCents', d->'amountInCents') ELSE d END)
	FROM jsonb_array_elements(purchase->'purchase'->'gifts') d))
	WHERE jsonb_typeof(purchase->'purchase'->'gifts') = 'array' AND jsonb_array_length(purchase->'purchase'->'gifts') > 0;
UPDATE gift_certificates SET code = upper(encode(code_hash, 'hex')) WHERE code <> upper(encode(code_hash, 'hex'));
