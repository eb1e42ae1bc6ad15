-- Gift certificates bought in the store (issue 12): an id for events and receipts, the amount
-- issued, who bought it and for whom, and the order that paid for it. Codes issued before
-- (the development seed) keep empty buyer fields.
ALTER TABLE gift_certificates
	ADD COLUMN id               uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
	ADD COLUMN initial_in_cents bigint NOT NULL DEFAULT 0 CHECK (initial_in_cents >= 0),
	ADD COLUMN buyer_email      text NOT NULL DEFAULT '',
	ADD COLUMN buyer_account_id text NOT NULL DEFAULT '',
	ADD COLUMN recipient_email  text NOT NULL DEFAULT '',
	ADD COLUMN recipient_name   text NOT NULL DEFAULT '',
	ADD COLUMN message          text NOT NULL DEFAULT '',
	ADD COLUMN order_id         text NOT NULL DEFAULT '';
CREATE INDEX gift_certificates_order ON gift_certificates (order_id) WHERE order_id <> '';

-- Preconfigured one-off carts (spec 001 §3): created by staff, opened by a link with the id.
CREATE TABLE preconfigured_carts (
	id                 uuid PRIMARY KEY,
	request_json       jsonb NOT NULL,
	commerce_cart_type text NOT NULL,
	created_by         text NOT NULL,
	created_at         timestamptz NOT NULL DEFAULT now()
);
