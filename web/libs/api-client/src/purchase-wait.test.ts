import { describe, expect, it, vi } from 'vitest';
import { ATTEMPT_CLOSED, ORDER_IN_PROGRESS, PurchaseAttempt, purchaseInProgress, submitPurchase, waitWhileProcessing, type PurchaseResult } from './purchase';
import { createApiClient } from './index';

const inProgress: PurchaseResult = { status: 'fail', code: 'conflict', reason: ORDER_IN_PROGRESS, errors: ['This order is being processed.'], retryAfterSeconds: 2 };

/** A clock the waits advance: no real time passes. */
function fakeClock() {
  let t = 0;
  const waits: number[] = [];
  return { waits, now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)) };
}

describe('waitWhileProcessing', () => {
  it('asks again as Retry-After says until the order is there, showing the wait', async () => {
    const clock = fakeClock();
    const again = vi.fn<() => Promise<PurchaseResult>>().mockResolvedValueOnce({ ...inProgress, retryAfterSeconds: 3 }).mockResolvedValueOnce({ status: 'ok', invoiceId: 'inv-1' });
    const waiting: boolean[] = [];
    const r = await waitWhileProcessing(inProgress, again, purchaseInProgress, { ...clock, onWaiting: (w) => waiting.push(w) });
    expect(r).toMatchObject({ status: 'ok', invoiceId: 'inv-1' });
    expect(clock.waits).toEqual([2000, 3000]);
    expect(waiting).toEqual([true, false]);
  });

  it('gives up at the bound with the answer still being processed', async () => {
    const clock = fakeClock();
    const again = vi.fn(async () => inProgress);
    const r = await waitWhileProcessing(inProgress, again, purchaseInProgress, { ...clock, boundMs: 7000 });
    expect(purchaseInProgress(r)).toBe(2);
    expect(clock.waits).toEqual([2000, 2000, 2000]);
  });

  it('does not wait for any other answer', async () => {
    const again = vi.fn(async () => inProgress);
    const closed: PurchaseResult = { status: 'fail', code: 'conflict', reason: ATTEMPT_CLOSED, errors: ['x'] };
    expect(await waitWhileProcessing(closed, again, purchaseInProgress)).toBe(closed);
    expect(again).not.toHaveBeenCalled();
  });
});

describe('PurchaseAttempt', () => {
  it('keeps the key while the order is being processed and takes a new one after a closed attempt', () => {
    const a = new PurchaseAttempt();
    const k1 = a.keyFor('order');
    a.after(inProgress);
    expect(a.keyFor('order')).toBe(k1);
    a.after({ status: 'fail', code: 'conflict', reason: ATTEMPT_CLOSED, errors: ['x'] });
    expect(a.keyFor('order')).not.toBe(k1);
  });
});

describe('submitPurchase', () => {
  it('reads the reason and Retry-After of a 409', async () => {
    const fetchImpl = vi.fn(async () => new Response(JSON.stringify({ code: 'conflict', reason: ORDER_IN_PROGRESS, message: 'This order is being processed.' }), { status: 409, headers: { 'Retry-After': '2' } }));
    const r = await submitPurchase(createApiClient({ fetch: fetchImpl, baseUrl: 'http://store', cookie: () => 'XSRF-TOKEN=t' }).checkout, '/buy/api/gift/submit', {}, 'k');
    expect(r).toMatchObject({ status: 'fail', reason: ORDER_IN_PROGRESS, retryAfterSeconds: 2 });
    expect(purchaseInProgress(r)).toBe(2);
  });
});
