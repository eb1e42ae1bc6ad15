import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '@hangar/api-client';
import { accountApi, autoRenewReducer, describeMethod, paymentReducer, receiptHref, type AutoRenewState, type PaymentState } from './account';

describe('auto-renew states (updating, submitting, succeeded, failed)', () => {
  it('one click goes through updating and submitting to the server answer', () => {
    let s: AutoRenewState = { kind: 'idle' };
    s = autoRenewReducer(s, { type: 'toggle', to: false });
    expect(s).toEqual({ kind: 'updating', to: false });
    s = autoRenewReducer(s, { type: 'submit' });
    expect(s).toEqual({ kind: 'submitting', to: false });
    // A second click while submitting changes nothing.
    expect(autoRenewReducer(s, { type: 'toggle', to: true })).toBe(s);
    expect(autoRenewReducer(s, { type: 'answer', status: 'succeeded', autoRenew: false })).toEqual({ kind: 'succeeded', on: false });
  });

  it('fails with the server errors, a transport error, or a default sentence', () => {
    const submitting: AutoRenewState = { kind: 'submitting', to: true };
    expect(autoRenewReducer(submitting, { type: 'answer', status: 'failed', errors: ['This product is not part of your subscription.'] })).toEqual({
      kind: 'failed',
      to: true,
      errors: ['This product is not part of your subscription.'],
    });
    expect(autoRenewReducer(submitting, { type: 'error', message: 'POST /buy/api/subscription/auto-renew timed out after 10000 ms' })).toMatchObject({ kind: 'failed' });
    expect(autoRenewReducer(submitting, { type: 'answer', status: 'failed' })).toMatchObject({ kind: 'failed', errors: [expect.stringContaining('could not be changed')] });
    // An answer that arrives when nothing was submitted is ignored.
    expect(autoRenewReducer({ kind: 'idle' }, { type: 'answer', status: 'succeeded', autoRenew: true })).toEqual({ kind: 'idle' });
  });

  it('after a failure a click starts again', () => {
    const failed: AutoRenewState = { kind: 'failed', to: false, errors: ['x'] };
    expect(autoRenewReducer(failed, { type: 'toggle', to: false })).toEqual({ kind: 'updating', to: false });
  });
});

describe('payment-method update states (updating, succeeded, failed)', () => {
  it('shows the form, updates, then succeeds', () => {
    let s: PaymentState = { kind: 'hidden' };
    expect(paymentReducer(s, { type: 'submit' })).toBe(s); // nothing to submit while hidden
    s = paymentReducer(s, { type: 'show' });
    expect(s).toEqual({ kind: 'form', errors: [] });
    s = paymentReducer(s, { type: 'invalid', errors: ['Cardholder name cannot be blank'] });
    expect(s).toEqual({ kind: 'form', errors: ['Cardholder name cannot be blank'] });
    s = paymentReducer(s, { type: 'submit' });
    expect(s).toEqual({ kind: 'updating' });
    expect(paymentReducer(s, { type: 'hide' })).toBe(s); // not while updating
    expect(paymentReducer(s, { type: 'answer', status: 'succeeded', summary: 'Visa ending in 1111' })).toEqual({ kind: 'succeeded', summary: 'Visa ending in 1111' });
  });

  it('fails with the errors list of the response (spec 001 §8) and may be retried', () => {
    const s = paymentReducer({ kind: 'updating' }, { type: 'answer', status: 'failed', errors: ['CVV does not match'] });
    expect(s).toEqual({ kind: 'failed', errors: ['CVV does not match'] });
    expect(paymentReducer(s, { type: 'submit' })).toEqual({ kind: 'updating' });
    expect(paymentReducer({ kind: 'updating' }, { type: 'error', message: 'down' })).toEqual({ kind: 'failed', errors: ['down'] });
  });
});

describe('helpers', () => {
  it('describes the method on file as the server names it', () => {
    expect(describeMethod({ type: 'Visa', last4: '1111', expirationDate: '12/2030' })).toBe('Visa ending in 1111, expires 12/2030');
    expect(describeMethod({ type: 'PayPal', braintreeEmail: 'pat@example.com' })).toBe('PayPal (pat@example.com)');
    expect(describeMethod(undefined)).toBe('');
  });

  it('links a receipt and its printable invoice to the success page', () => {
    expect(receiptHref('a b')).toBe('/buy/success?invoiceId=a%20b');
    expect(receiptHref('x', 'invoice')).toBe('/buy/success?invoiceId=x&print=invoice');
  });
});

// The invitation calls go through the store's one client (identity's organizations document):
// the XSRF echo on a post, the answer's data, a refusal as ApiError.
describe('invitation calls', () => {
  function edge(answer: (path: string, body: unknown) => Response) {
    const sent: { path: string; body: unknown; xsrf: string | null }[] = [];
    const client = createApiClient({
      baseUrl: 'http://store.test',
      cookie: () => 'XSRF-TOKEN=t',
      fetch: async (input, init = {}) => {
        const path = new URL(String(input)).pathname;
        const body = init.body ? JSON.parse(String(init.body)) : undefined;
        sent.push({ path, body, xsrf: new Headers(init.headers).get('X-XSRF-TOKEN') });
        return answer(path, body);
      },
    });
    return { api: accountApi(client), sent };
  }
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('invites, looks up and accepts on the organizations routes', async () => {
    const { api, sent } = edge((path) =>
      path === '/org/api/members'
        ? json(200, { status: 'invited', message: 'An invitation is on its way.' })
        : path === '/org/api/invitations/lookup'
          ? json(200, { organizationName: 'Acme', email: 'crew@example.com', roles: ['member'], hasAccount: false })
          : json(200, { status: 'ok', organizationName: 'Acme', organizationAccount: 'acc-1' }),
    );
    expect(await api.invite('crew@example.com', ['dispatcher'])).toBe('An invitation is on its way.');
    expect(await api.invitation('tok')).toMatchObject({ organizationName: 'Acme', hasAccount: false });
    expect(await api.acceptInvitation('tok', 'pw-pw-pw-pw', 'pw-pw-pw-pw')).toMatchObject({ organizationName: 'Acme' });
    expect(sent).toEqual([
      { path: '/org/api/members', body: { email: 'crew@example.com', roles: ['dispatcher'] }, xsrf: 't' },
      { path: '/org/api/invitations/lookup', body: { token: 'tok' }, xsrf: 't' },
      { path: '/org/api/invitations/accept', body: { token: 'tok', password: 'pw-pw-pw-pw', confirmPassword: 'pw-pw-pw-pw' }, xsrf: 't' },
    ]);
  });

  it('answers a refused link as ApiError with its field', async () => {
    const { api } = edge(() => json(400, { code: 'invalid_argument', message: 'This invitation has expired.', fieldErrors: [{ field: 'token', message: 'This invitation has expired.' }] }));
    const err = await api.invitation('tok').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).fieldErrors[0]?.message).toBe('This invitation has expired.');
  });
});
