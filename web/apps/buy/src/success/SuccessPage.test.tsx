import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { DEFAULT_LINKS, createApiClient } from '@hangar/api-client';
import { setApiClient } from '../api';
import { SuccessPage } from './SuccessPage';
import { RECEIPT_FRESH_MS, keepReceipt, receiptKey } from './receiptQuery';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  setApiClient(undefined);
  window.history.replaceState(null, '', '/');
});

function receipt(canPrintInvoice: boolean, extra: Record<string, unknown> = {}) {
  const fetch = vi.fn(async () =>
    new Response(JSON.stringify({ invoiceId: 'inv-1', invoiceNumber: 'H-000001', currency: 'EUR', total: '199.99', canPrintInvoice, accountId: 'acct-1', billingContact: { name: 'Pat Pilot' }, ...extra }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    }),
  );
  setApiClient(createApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, baseUrl: 'http://store.test' }));
}

function show(newAccount?: boolean) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SuccessPage invoiceId="inv-1" newAccount={newAccount} print={() => undefined} />
    </QueryClientProvider>,
  );
}

describe('/buy/success?print=invoice (the account page\'s Print invoice)', () => {
  it('opens the billing-contact modal where the server offers printing', async () => {
    window.history.replaceState(null, '', '/buy/success?invoiceId=inv-1&print=invoice');
    receipt(true);
    show();
    expect(await screen.findByTestId('billing-contact-modal')).toBeTruthy();
  });

  it('does not where printing is not offered', async () => {
    window.history.replaceState(null, '', '/buy/success?invoiceId=inv-1&print=invoice');
    receipt(false);
    show();
    await screen.findByTestId('receipt');
    await waitFor(() => expect(screen.queryByTestId('billing-contact-modal')).toBeNull());
    expect(screen.queryByRole('button', { name: 'Print invoice' })).toBeNull();
  });
});

describe('/buy/success leads on after the receipt', () => {
  it('shows the next steps in order: password (new account), app, subscription, papers', async () => {
    receipt(true);
    show(true);
    const next = await screen.findByTestId('next-steps');
    expect([...next.querySelectorAll('li[data-step]')].map((li) => li.getAttribute('data-step'))).toEqual(['password', 'app', 'account', 'papers']);
    expect(screen.getByRole('link', { name: 'Set your password' }).getAttribute('href')).toBe('/account/set-password');
    expect(screen.getByRole('link', { name: 'Manage your subscription' }).getAttribute('href')).toBe('/account');
    expect(screen.getByRole('link', { name: 'Download Hangar from the App Store' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Print invoice' })).toBeTruthy();
    // The receipt comes first.
    const receiptBox = screen.getByTestId('receipt');
    expect(receiptBox.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('offers no password step to a buyer who was signed in', async () => {
    receipt(false);
    show(false);
    await screen.findByTestId('next-steps');
    expect(screen.queryByRole('link', { name: 'Set your password' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Print receipt' })).toBeTruthy();
  });
});

// Issue 31 item 3: for an EU guest 'Print invoice' saved the contact through the account's
// route, which answered 403 and reloaded the page with prompt=login. It saves through the
// receipt's own route now (the receipt token suffices), and the PDF is a link away.
describe('/buy/success papers for a guest', () => {
  it('saves the billing contact through the receipt and offers the PDF', async () => {
    const calls: string[] = [];
    const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(String(input), init);
      calls.push(`${req.method} ${new URL(req.url).pathname}`);
      const seller = { name: 'Hangar Aviation Software Ltd', address: '1 Runway Road\nDublin', vatNumber: 'IE0000000XX' };
      const body = req.method === 'POST' ? { invoiceId: 'inv-1', billingContact: {} } : { invoiceId: 'inv-1', invoiceNumber: 'H-000001', currency: 'EUR', total: '199.99', canPrintInvoice: true, accountId: 'acct-1', seller, billingContact: { name: 'Pat Pilot', physicalAddress: 'Hauptstrasse 1', city: 'Berlin', country: 'DE' } };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    setApiClient(createApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, baseUrl: 'http://store.test' }));
    show();
    expect((await screen.findByTestId('receipt-pdf')).getAttribute('href')).toBe('/buy/api/receipt/inv-1/pdf');
    // The printed receipt names the seller with its VAT number.
    expect(screen.getByTestId('receipt-seller').textContent).toBe('Hangar Aviation Software Ltd1 Runway RoadDublinVAT number: IE0000000XX');
    screen.getByRole('button', { name: 'Print invoice' }).click();
    const modal = await screen.findByTestId('billing-contact-modal');
    (modal.querySelector('form') as HTMLFormElement).requestSubmit();
    await waitFor(() => expect(calls).toContain('POST /buy/api/receipt/inv-1/contact'));
    expect(calls.some((c) => c.includes('/contact/update/'))).toBe(false);
  });
});

// Issue 31 item 3: the invoice printed right after 'Save and print invoice' still named the
// contact the receipt was loaded with (the e2e EU guest saw 'Bill to Amelia Earhart' after
// saving 'Luft GmbH').
describe('/buy/success: the invoice prints with the contact just saved', () => {
  it('shows the saved contact before it prints', async () => {
    const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(String(input), init);
      const body = req.method === 'POST' ? { invoiceId: 'inv-1', billingContact: {} } : { invoiceId: 'inv-1', invoiceNumber: 'H-000001', currency: 'EUR', total: '199.99', canPrintInvoice: true, accountId: 'acct-1', billingContact: { name: 'Pat Pilot', country: 'DE' } };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    setApiClient(createApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, baseUrl: 'http://store.test' }));
    const printed: string[] = [];
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <SuccessPage invoiceId="inv-1" print={() => printed.push(screen.getByTestId('receipt').textContent ?? '')} />
      </QueryClientProvider>,
    );
    (await screen.findByRole('button', { name: 'Print invoice' })).click();
    const modal = await screen.findByTestId('billing-contact-modal');
    fireEvent.change(within(modal).getByLabelText('Name'), { target: { value: 'Luft GmbH' } });
    (modal.querySelector('form') as HTMLFormElement).requestSubmit();
    await waitFor(() => expect(printed).toHaveLength(1));
    expect(printed[0]).toContain('Luft GmbH');
    expect(printed[0]).not.toContain('Pat Pilot');
  });
});

describe("/buy/success's Download the app link", () => {
  it("is the runtime config's App Store listing (HANGAR_APP_STORE_URL), the default without one", async () => {
    const listing = 'https://apps.apple.com/us/app/hangar/id1234567890';
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ links: { appStore: listing } }), { status: 200 })));
    receipt(false);
    show();
    await waitFor(() => expect(screen.getByRole('link', { name: 'Download Hangar from the App Store' }).getAttribute('href')).toBe(listing));
    cleanup();
    vi.stubGlobal('fetch', vi.fn(async () => new Response('not found', { status: 404 })));
    receipt(false);
    show();
    await screen.findByTestId('next-steps');
    await waitFor(() => expect(screen.getByRole('link', { name: 'Download Hangar from the App Store' }).getAttribute('href')).toBe(DEFAULT_LINKS.appStore));
  });
});

// Issue 45 item 5: the receipt said "VAT" and the amount, never the rate charged.
describe('/buy/success prints the tax rate', () => {
  it('shows the rate the server answers beside the tax', async () => {
    receipt(true, { taxVatText: 'VAT', tax: '42.78', taxInCents: 4278, taxRate: '23 %' });
    show();
    const table = await screen.findByTestId('receipt');
    expect(within(table).getByRole('rowheader', { name: 'VAT (23 %)' })).toBeTruthy();
  });

  it('shows the tax alone when the order recorded no rate', async () => {
    receipt(true, { taxVatText: 'VAT', tax: '42.78', taxInCents: 4278 });
    show();
    const table = await screen.findByTestId('receipt');
    expect(within(table).getByRole('rowheader', { name: 'VAT' })).toBeTruthy();
  });
});

// Issue 45 item 7: each purchase ends with its own words; gift and one-off buyers were told
// their plan was ready and sent to manage a subscription.
describe('/buy/success says what happened for each kind of purchase', () => {
  it('a gift: where the code went, and nothing of a subscription', async () => {
    receipt(false, {
      type: 'gift',
      email: 'buyer@example.com',
      currency: 'USD',
      certificates: [{ certificateId: 'c1', maskedCode: '••••-••••-••••-7KQ2', balanceInCents: 37000, currency: 'USD', recipientEmail: 'friend@example.com', recipientName: 'Sam' }],
    });
    show();
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Thank you for your gift certificate');
    expect(screen.getByTestId('gift-sent-to').textContent).toBe('The code went by e-mail to Sam (friend@example.com), who redeems it at checkout. A copy went to buyer@example.com.');
    expect(screen.getByTestId('gift-certificates').textContent).toContain('$370.00');
    expect(screen.queryByText(/your plan is ready/)).toBeNull();
    expect(screen.queryByRole('link', { name: 'Manage your subscription' })).toBeNull();
  });

  it('a one-off order: what was bought and where to find it', async () => {
    receipt(false, {
      type: 'oneoff',
      currency: 'USD',
      invoiceItems: [{ type: 'NON_RECURRING_ITEM', description: 'Garmin Database Card (SD)', quantity: 2, amountInCents: 9800, amount: '98.00' }],
    });
    show();
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Thank you for your order');
    expect(screen.getByTestId('oneoff-items').textContent).toBe('Garmin Database Card (SD) × 2');
    expect(screen.getByRole('link', { name: 'Go to your account' }).getAttribute('href')).toBe('/account');
    expect(screen.queryByText(/your plan is ready/)).toBeNull();
    expect(screen.queryByRole('link', { name: 'Manage your subscription' })).toBeNull();
  });

  it('amounts are grouped, and what paid after tax is listed below the tax', async () => {
    receipt(false, {
      type: 'subscription',
      currency: 'USD',
      invoiceItems: [
        { type: 'PLAN', description: 'Business Pro — 1 year', quantity: 50, amountInCents: 1250000, amount: '12500.00' },
        { type: 'ACCOUNT_BALANCE', description: 'Paid from account balance', amountInCents: -2500, amount: '-25.00', postTax: true },
      ],
      subtotal: '12500.00',
      subtotalInCents: 1250000,
      tax: '0.00',
      taxInCents: 0,
      total: '12475.00',
      totalInCents: 1247500,
    });
    show();
    const box = await screen.findByTestId('receipt');
    const rows = [...box.querySelectorAll('tr')].map((tr) => tr.textContent);
    expect(rows).toEqual(['ItemAmount', 'Business Pro — 1 year × 50$12,500.00', 'Subtotal$12,500.00', 'Tax$0.00', 'Paid from account balance-$25.00', 'Total$12,475.00']);
  });
});

describe('/buy/success without an order', () => {
  it('thanks for nothing and points to the account', () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SuccessPage invoiceId="" print={() => undefined} />
      </QueryClientProvider>,
    );
    expect(screen.queryByText(/Thank you/)).toBeNull();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Your receipts');
    expect(screen.getByRole('link', { name: 'Go to your account' }).getAttribute('href')).toBe('/account');
  });
});

describe('/buy/success after the buy page\'s submit', () => {
  it('shows the receipt the submit answered, without asking for it again', async () => {
    const fetch = vi.fn(async () => new Response('{}', { status: 500, headers: { 'content-type': 'application/json' } }));
    setApiClient(createApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, baseUrl: 'http://store.test' }));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    keepReceipt(client, 'inv-2', { invoiceId: 'inv-2', invoiceNumber: 'HGR-2026-000002', currency: 'USD', total: '470.00', canPrintInvoice: false, accountId: 'acct-1' });
    render(
      <QueryClientProvider client={client}>
        <SuccessPage invoiceId="inv-2" print={() => undefined} />
      </QueryClientProvider>,
    );
    expect((await screen.findByTestId('receipt-id')).textContent).toBe('HGR-2026-000002');
    expect(screen.getByTestId('receipt-total').textContent).toContain('470.00');
    const urls = fetch.mock.calls.map((args) => {
      const input = (args as unknown[])[0];
      return input instanceof Request ? input.url : String(input);
    });
    expect(urls.filter((u) => u.includes('/buy/api/receipt/'))).toEqual([]);
  });
});

describe('/buy/success visited again', () => {
  it('asks the route for a receipt held longer than it stays fresh', async () => {
    window.history.replaceState(null, '', '/buy/success?invoiceId=inv-1');
    receipt(false, { invoiceNumber: 'H-000001-C1' });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(receiptKey('inv-1'), { invoiceId: 'inv-1', invoiceNumber: 'H-000001', currency: 'EUR', total: '199.99' },
      { updatedAt: Date.now() - RECEIPT_FRESH_MS - 1000 });
    render(
      <QueryClientProvider client={client}>
        <SuccessPage invoiceId="inv-1" print={() => undefined} />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('receipt-id').textContent).toBe('H-000001-C1'));
  });
});
