-- invoice_number as PostgreSQL can inline it into the statement that draws the number: a
-- STRICT SQL function whose body is not strict itself (greatest() answers for a NULL) is
-- never inlined, so every order's close ran it as a function call planned afresh. The
-- answer is the same for every input, NULL ones included (a NULL year or sequence number
-- makes the concatenation NULL).
CREATE OR REPLACE FUNCTION invoice_number(year integer, seq bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT 'HGR-' || year::text || '-' || lpad(seq::text, greatest(6, length(seq::text)), '0') $$;
