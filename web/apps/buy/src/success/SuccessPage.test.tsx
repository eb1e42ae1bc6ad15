import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createApiClient } from '@hangar/api-client';
import { setApiClient } from '../api';
import { SuccessPage } from './SuccessPage';

afterEach(() => {
  cleanup();
  setApiClient(undefined);
  window.history.replaceState(null, '', '/');
});

function receipt(canPrintInvoice: boolean) {
  const fetch = vi.fn(async () =>
    new Response(JSON.stringify({ invoiceId: 'inv-1', invoiceNumber: 'H-000001', currency: 'EUR', total: '199.99', canPrintInvoice, accountId: 'acct-1', billingContact: { name: 'Pat Pilot' } }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    }),
  );
  setApiClient(createApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, baseUrl: 'http://store.test' }));
}

function show() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SuccessPage invoiceId="inv-1" print={() => undefined} />
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
