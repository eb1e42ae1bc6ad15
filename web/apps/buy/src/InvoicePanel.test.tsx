import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { InvoicePanel } from './InvoicePanel';
import type { Preview } from './hooks';

afterEach(cleanup);

// Issue 45 item 6: with an account balance the lines read $199.99 + $0 + $100 − $184.13
// − $25, subtotal $115.86: the balance sat above the subtotal it is not part of. The server
// marks it postTax and the panel lists it below the tax, so every column sums on screen.
const preview = {
  requestCounter: 1,
  requestKey: 'k',
  renewalDate: '2027-12-06',
  renewalAmountInCents: 29999,
  invoice: {
    currency: 'USD',
    subtotalInCents: 11586,
    taxInCents: 840,
    totalInCents: 9926,
    taxVatText: 'Tax',
    taxJurisdiction: 'US-CA',
    invoiceItems: [
      { type: 'PLAN', addOnCode: 'pro_plus', description: 'Essential — 1 year', amountInCents: 19999, quantity: 1, key: 'PLAN:pro_plus' },
      { type: 'PLAN_ADD_ON', addOnCode: 'included_geo_us', description: 'United States — 1 year', amountInCents: 0, quantity: 1, key: 'PLAN_ADD_ON:included_geo_us' },
      { type: 'PLAN_ADD_ON', addOnCode: 'add_geo_eu', description: 'Europe — 1 year', amountInCents: 10000, quantity: 1, key: 'PLAN_ADD_ON:add_geo_eu' },
      { type: 'SUBSCRIPTION_CREDIT', description: 'Credit for 143 unused days of Premium', amountInCents: -18413, key: 'SUBSCRIPTION_CREDIT:s' },
      { type: 'ACCOUNT_BALANCE', description: 'Paid from account balance', amountInCents: -2500, key: 'ACCOUNT_BALANCE', postTax: true },
    ],
  },
} as unknown as Preview;

describe('InvoicePanel', () => {
  it('lists the balance below the tax, so the lines sum to the subtotal and the total', () => {
    render(<InvoicePanel preview={preview} currency="USD" updating={false} />);
    const rows = [...screen.getByTestId('invoice').querySelectorAll('tr')].map((tr) => [tr.querySelector('th')?.firstChild?.textContent, tr.querySelector('td')?.textContent]);
    expect(rows.slice(1)).toEqual([
      ['Essential — 1 year', '$199.99'],
      ['United States — 1 year', '$0'],
      ['Europe — 1 year', '$100'],
      ['Credit for 143 unused days of Premium', '-$184.13'],
      ['Subtotal', '$115.86'],
      ['Tax', '$8.40'],
      ['Paid from account balance', '-$25'],
      ['Total', '$99.26'],
    ]);
  });

  it('prints the renewal date as the store prints dates', () => {
    render(<InvoicePanel preview={preview} currency="USD" updating={false} />);
    expect(screen.getByTestId('invoice-renewal').textContent).toBe('Renews at $299.99/yr on 12-06-2027.');
  });
});
