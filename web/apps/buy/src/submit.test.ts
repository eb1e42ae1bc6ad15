import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, PurchaseAttempt, purchaseInProgress, submitPurchase, type WireConfiguration } from '@hangar/api-client';
import { setApiClient } from './api';
import { submitBody, submitOrder, successUrl } from './submit';

afterEach(() => setApiClient(undefined));

const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('submitOrder', () => {
  const configuration = { email: 'new@b.co', currency: 'USD', addOns: ['pro_plus'] } as WireConfiguration;

  it('sends the marketing tick with the configuration, and nothing when the box was not ticked', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const fetch = vi.fn(async (_: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return answer({ invoiceId: 'inv-1', redirectUrl: '/buy/success?invoiceId=inv-1' });
    });
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge', cookie: () => 'XSRF-TOKEN=t' }));
    expect((await submitOrder({ configuration, nonce: 'n1', marketingConsent: true }, new PurchaseAttempt(), 'q1')).status).toBe('ok');
    expect((await submitOrder({ configuration, nonce: 'n2' }, new PurchaseAttempt(), 'q1')).status).toBe('ok');
    expect(bodies[0]).toMatchObject({ email: 'new@b.co', nonce: 'n1', marketingConsent: true });
    expect(bodies[1]!.marketingConsent).toBeUndefined();
  });

  it('keeps the key of an attempt whose answer was lost, and asks again once with it', async () => {
    const keys: string[] = [];
    const fetch = vi.fn(async (_: RequestInfo | URL, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get('Idempotency-Key') ?? '');
      return keys.length === 1 ? answer({ code: 'unavailable', message: 'try again' }, 503) : answer({ invoiceId: 'inv-1' });
    });
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge', cookie: () => 'XSRF-TOKEN=t' }));
    expect(await submitOrder({ configuration, nonce: 'n' }, new PurchaseAttempt(), 'q1')).toMatchObject({ status: 'ok', invoiceId: 'inv-1' });
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe('');
    expect(keys[1]).toBe(keys[0]);
  });

  it('refuses a stored method that is not the buyer\'s with the server\'s words', async () => {
    const message = 'This stored payment method cannot be used for this purchase.';
    setApiClient(createApiClient({ fetch: vi.fn(async () => answer({ code: 'permission_denied', message }, 403)), baseUrl: 'http://edge', cookie: () => 'XSRF-TOKEN=t' }));
    await expect(submitOrder({ configuration, paymentMethodToken: 'pm_someone_else' }, new PurchaseAttempt(), 'q1')).rejects.toMatchObject({ status: 403, code: 'permission_denied', message });
  });

  it('reads the one error body: a changed quote carries its reason and the fresh preview; an order in progress its wait', async () => {
    const message = 'The price of your order changed. Please review the new total and submit again.';
    const body = { code: 'conflict', message, reason: 'QUOTE_CHANGED', status: 'fail', errors: [message], msg: message, preview: { quoteId: 'q_2' } };
    const fetch = vi.fn(async () => answer(body, 409));
    const client = createApiClient({ fetch, baseUrl: 'http://edge', cookie: () => 'XSRF-TOKEN=t' });
    setApiClient(client);
    expect(await submitOrder({ configuration, nonce: 'n' }, new PurchaseAttempt(), 'q1')).toMatchObject({ status: 'fail', httpStatus: 409, code: 'conflict', reason: 'QUOTE_CHANGED', errors: [message], preview: { quoteId: 'q_2' } });
    expect(fetch).toHaveBeenCalledTimes(1);
    const busy = { code: 'conflict', message: 'This order is being processed.', reason: 'ORDER_IN_PROGRESS', status: 'fail', errors: ['This order is being processed.'] };
    fetch.mockImplementation(async () => answer(busy, 409, { 'Retry-After': '2' }));
    expect(purchaseInProgress(await submitPurchase(client.checkout, '/buy/api/invoice/submit', submitBody({ configuration, nonce: 'n' }), 'k4'))).toBe(2);
    const closed = { code: 'conflict', message: 'This order could not be completed and you were not charged.', reason: 'ATTEMPT_CLOSED', status: 'fail', errors: ['x'] };
    fetch.mockImplementation(async () => answer(closed, 409));
    const r = await submitPurchase(client.checkout, '/buy/api/invoice/submit', submitBody({ configuration, nonce: 'n' }), 'k4');
    expect(r).toMatchObject({ reason: 'ATTEMPT_CLOSED' });
    expect(purchaseInProgress(r)).toBeUndefined();
  });
});

describe('successUrl: the page goes only to paths of this site after payment', () => {
  it('takes the server redirect and its extension', () => {
    expect(successUrl({ redirectUrl: '/buy/success?invoiceId=1', extension: '&x=1' }, false)).toBe('/buy/success?invoiceId=1&x=1');
    expect(successUrl({ invoiceId: 'inv-1' }, false, { newAccount: true })).toBe('/buy/success?invoiceId=inv-1&newAccount=1');
  });
  it('never another origin', () => {
    for (const redirectUrl of ['https://evil.example/phish', '//evil.example/phish', '/\\evil.example', 'javascript:alert(1)']) {
      expect(successUrl({ redirectUrl, invoiceId: 'inv-1' }, false)).toBe('/buy/success?invoiceId=inv-1');
    }
  });
});
