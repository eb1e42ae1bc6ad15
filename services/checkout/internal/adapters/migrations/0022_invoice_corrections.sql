-- Corrected copies of an invoice (issue 41): the billing contact of an issued invoice is
-- fixed; a different contact saved later issues a corrected copy, numbered with the
-- invoice number and a suffix (-C1, -C2…). The original keeps orders.invoice_contact.
CREATE TABLE invoice_corrections (
	invoice_id uuid NOT NULL REFERENCES orders (invoice_id),
	seq        integer NOT NULL CHECK (seq > 0),
	number     text NOT NULL UNIQUE,
	contact    jsonb NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (invoice_id, seq)
);
