import { describe, expect, it, vi } from 'vitest';
import {
  ADD_PAYMENT_INFO_THROTTLE_MS,
  MISSING_PURCHASE_PARAMS,
  analytics,
  createAnalytics,
  type AnalyticsEvent,
  type PurchaseDetails,
} from './index';

function recorder() {
  const events: AnalyticsEvent[] = [];
  return { events, sink: { send: (e: AnalyticsEvent) => events.push(e) } };
}

const order: PurchaseDetails = {
  currency: 'USD',
  value: 199.99,
  items: [{ addOnCode: 'pro_plus', description: 'Essential', amount: 199.99, unitAmount: 199.99, quantity: 0, planType: 'individual' }],
};

describe('analytics', () => {
  it('is a no-op by default', () => {
    expect(() => analytics().page('Buy')).not.toThrow();
    expect(() => createAnalytics().invoiceReceived(order)).not.toThrow();
  });

  it('logs page views by page title', () => {
    const r = recorder();
    createAnalytics({ sink: r.sink }).page('Hangar - Buy');
    expect(r.events).toEqual([{ type: 'page', name: 'Hangar - Buy' }]);
  });

  it('sends add-to-cart and purchase when an invoice is received, with quantity at least 1', () => {
    const r = recorder();
    createAnalytics({ sink: r.sink }).invoiceReceived(order);
    expect(r.events.map((e) => e.type)).toEqual(['add_to_cart', 'purchase']);
    const purchase = r.events[1] as Extract<AnalyticsEvent, { type: 'purchase' }>;
    expect(purchase.items[0]?.quantity).toBe(1);
  });

  it('throws on a purchase without currency, value or items', () => {
    const a = createAnalytics();
    expect(() => a.purchase({ ...order, currency: '' })).toThrow(MISSING_PURCHASE_PARAMS);
    expect(() => a.purchase({ ...order, value: Number.NaN })).toThrow(MISSING_PURCHASE_PARAMS);
    expect(() => a.purchase({ ...order, items: undefined as never })).toThrow(MISSING_PURCHASE_PARAMS);
  });

  it('logs an error instead of sending a social purchase without currency or value', () => {
    const r = recorder();
    const logError = vi.fn();
    const a = createAnalytics({ sink: r.sink, logError });
    a.socialPurchase(undefined, 10);
    a.socialPurchase('USD', undefined);
    expect(logError).toHaveBeenCalledTimes(2);
    a.socialPurchase('USD', 10);
    expect(r.events).toEqual([{ type: 'social_purchase', currency: 'USD', value: 10 }]);
  });

  it('throttles add-payment-info to one per 300000 ms', () => {
    const r = recorder();
    let t = 1_000;
    const a = createAnalytics({ sink: r.sink, now: () => t });
    a.addPaymentInfo();
    t += ADD_PAYMENT_INFO_THROTTLE_MS - 1;
    a.addPaymentInfo();
    t += 1;
    a.addPaymentInfo();
    expect(r.events).toHaveLength(2);
  });

  it('survives a sink that throws', () => {
    const logError = vi.fn();
    const a = createAnalytics({ sink: { send: () => { throw new Error('boom'); } }, logError });
    expect(() => a.orderCompleted(order)).not.toThrow();
    expect(logError).toHaveBeenCalledWith('analytics sink failed: boom');
  });
});
