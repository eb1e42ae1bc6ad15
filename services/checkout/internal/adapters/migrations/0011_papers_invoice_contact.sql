-- The billing contact printed on an order's invoice (issue 31): saved by whoever may read
-- the receipt (its token or the Billing right), so a guest prints a proper invoice without
-- an account session. NULL: none given (the card's name, ZIP and country are printed).
ALTER TABLE orders ADD COLUMN IF NOT EXISTS invoice_contact jsonb;
