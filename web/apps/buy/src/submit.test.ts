import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, type WireConfiguration } from '@hangar/api-client';
import { setApiClient } from './api';
import { submit, successUrl } from './submit';

afterEach(() => setApiClient(undefined));

describe('submit', () => {
  it('sends the marketing tick with the configuration, and nothing when the box was not ticked', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const fetch = vi.fn(async (_: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(JSON.stringify({ invoiceId: 'inv-1', redirectUrl: '/buy/success?invoiceId=inv-1' }), { headers: { 'content-type': 'application/json' } });
    });
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
    const configuration = { email: 'new@b.co', currency: 'USD', addOns: ['pro_plus'] } as WireConfiguration;
    expect((await submit({ configuration, nonce: 'n1', idempotencyKey: 'k1', marketingConsent: true })).ok).toBe(true);
    expect((await submit({ configuration, nonce: 'n2', idempotencyKey: 'k2' })).ok).toBe(true);
    expect(bodies[0]).toMatchObject({ email: 'new@b.co', nonce: 'n1', marketingConsent: true });
    expect(bodies[1]!.marketingConsent).toBeUndefined();
  });

  it('shows the refusal of a stored method that is not the buyer\'s, and may not retry it', async () => {
    const message = 'This stored payment method cannot be used for this purchase.';
    const fetch = vi.fn(async () => new Response(JSON.stringify({ code: 'permission_denied', message }), { status: 403, headers: { 'content-type': 'application/json' } }));
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
    const configuration = { email: 'new@b.co', currency: 'USD', addOns: ['pro_plus'] } as WireConfiguration;
    const r = await submit({ configuration, paymentMethodToken: 'pm_someone_else', idempotencyKey: 'k3' });
    expect(r).toMatchObject({ ok: false, status: 403, code: 'permission_denied', errors: [message], requireLogin: false, retryable: false });
  });

  it('reads the one error body: a changed quote carries its reason and the fresh preview and is not retried', async () => {
    const message = 'The price of your order changed. Please review the new total and submit again.';
    const body = { code: 'conflict', message, reason: 'QUOTE_CHANGED', status: 'fail', errors: [message], msg: message, preview: { quoteId: 'q_2' } };
    const fetch = vi.fn(async () => new Response(JSON.stringify(body), { status: 409, headers: { 'content-type': 'application/json' } }));
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
    const configuration = { email: 'new@b.co', currency: 'USD', addOns: ['pro_plus'] } as WireConfiguration;
    const r = await submit({ configuration, nonce: 'n', idempotencyKey: 'k4' });
    expect(r).toMatchObject({ ok: false, status: 409, code: 'conflict', reason: 'QUOTE_CHANGED', errors: [message], preview: { quoteId: 'q_2' }, retryable: false });
    const busy = { code: 'conflict', message: 'This order is being processed.', reason: 'ORDER_IN_PROGRESS', status: 'fail', errors: ['This order is being processed.'] };
    fetch.mockImplementation(async () => new Response(JSON.stringify(busy), { status: 409, headers: { 'content-type': 'application/json', 'Retry-After': '2' } }));
    expect(await submit({ configuration, nonce: 'n', idempotencyKey: 'k4' })).toMatchObject({ inProgress: true, retryAfterSeconds: 2, retryable: false });
    const closed = { code: 'conflict', message: 'This order could not be completed and you were not charged.', reason: 'ATTEMPT_CLOSED', status: 'fail', errors: ['x'] };
    fetch.mockImplementation(async () => new Response(JSON.stringify(closed), { status: 409, headers: { 'content-type': 'application/json' } }));
    expect(await submit({ configuration, nonce: 'n', idempotencyKey: 'k4' })).toMatchObject({ reason: 'ATTEMPT_CLOSED', inProgress: false, retryable: false });
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
