-- A stored method pays only for its owner (issue 26). A card the sales-mode reader vaulted
-- was owned by the customer's e-mail, and its charges named the customer's account: it
-- now moves to that account when it first pays (app: the reader's card). Cards the reader
-- vaulted before that belong to the account of their first successful charge, so the
-- renewals of the subscriptions they paid keep charging them.
UPDATE payment_methods p SET customer_id = first.customer_id, updated_at = now()
FROM (SELECT DISTINCT ON (method_token) method_token, customer_id FROM charges
	WHERE method_token <> '' AND status IN ('authorized', 'captured', 'partially_refunded', 'refunded')
	ORDER BY method_token, created_at) first
WHERE p.token = first.method_token AND p.customer_id <> first.customer_id
	AND EXISTS (SELECT 1 FROM reader_sessions r WHERE r.method_token = p.token AND lower(r.email) = lower(p.customer_id));
