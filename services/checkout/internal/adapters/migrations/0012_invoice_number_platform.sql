-- The invoice number's one format (HGR-<year>-<sequence number, at least six digits>):
-- the single submit and the batch writer both draw it through this function, so the
-- format lives here only. Expand-only: code before this migration does not call it.
CREATE OR REPLACE FUNCTION invoice_number(year integer, seq bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT 'HGR-' || year::text || '-' || lpad(seq::text, greatest(6, length(seq::text)), '0') $$;
