-- The tax rate an order was charged at, in parts per million of the taxable base (0 under
-- the reverse charge and where no tax applies), printed beside the tax on the receipt and
-- the invoice (issue 45). Orders written before hold 0 and print no rate.
ALTER TABLE orders ADD COLUMN tax_rate_ppm bigint NOT NULL DEFAULT 0;
