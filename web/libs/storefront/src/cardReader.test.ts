import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@hangar/api-client';
import { CARD_READER_POLL_MS, payWithCardReader } from './index';

/** The path and query of a URL the store's client sent. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

afterEach(() => vi.unstubAllGlobals());

const json = (status: number, body: unknown) => Promise.resolve(new Response(JSON.stringify(body), { status }));

describe('card reader payment', () => {
  it('vaults on the reader and polls every 1000 ms until a payment method arrives', async () => {
    document.cookie = 'XSRF-TOKEN=x';
    const polls: string[] = [];
    let n = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init?: RequestInit) => {
        if (pathOf(url) === '/buy/api/card-reader/vault') {
          expect(JSON.parse(String(init?.body))).toEqual({ email: 'a@b.example', readerSerialNumber: 'RDR-0001', recaptchaValue: 'dev-human-1' });
          return json(200, { contextId: 'ctx-1' });
        }
        polls.push(pathOf(url));
        return json(200, ++n < 3 ? { status: 'waiting' } : { status: 'completed', paymentMethod: { token: 'pm-9', cardType: 'Visa', lastFour: '1111' }, cardholderName: 'Ada Lovelace' });
      }),
    );
    const waits: number[] = [];
    const r = await payWithCardReader('a@b.example', 'RDR-0001', { wait: async (ms) => void waits.push(ms), recaptchaValue: 'dev-human-1' });
    expect(r).toEqual({ paymentMethod: 'pm-9', cardholderName: 'Ada Lovelace' });
    expect(waits).toEqual([CARD_READER_POLL_MS, CARD_READER_POLL_MS, CARD_READER_POLL_MS]);
    expect(polls[0]).toBe('/buy/api/card-reader/vault-result?contextId=ctx-1');
  });

  it("surfaces the reader's message", async () => {
    document.cookie = 'XSRF-TOKEN=x';
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string) => (url.endsWith('/vault') ? json(200, { contextId: 'c' }) : json(412, { code: 'failed_precondition', message: 'Card declined' }))),
    );
    await expect(payWithCardReader('a@b.example', 'RDR-0001', { wait: async () => {} })).rejects.toMatchObject({ status: 412, message: 'Card declined' });
    await expect(payWithCardReader('a@b.example', 'RDR-0001', { wait: async () => {} })).rejects.toBeInstanceOf(ApiError);
  });
});
