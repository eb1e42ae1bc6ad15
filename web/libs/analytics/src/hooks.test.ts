import { describe, expect, it, vi } from 'vitest';
import { SEGMENT_TWICE, TAG_MANAGER_MISSING, fanOut, segmentSink, tagManagerSink } from './hooks';
import { MISSING_PURCHASE_PARAMS, createAnalytics } from './analytics';

describe('analytics hooks', () => {
  it('queues customer-data events on the segment-style stub', () => {
    const win: { analytics?: unknown[] } = {};
    const a = createAnalytics({ sink: segmentSink(win) });
    a.page('Compare plans · Hangar');
    a.track('Viewed pricing', { plan: 'pro' });
    expect([...win.analytics!]).toEqual([['page', 'Compare plans · Hangar'], ['track', 'Viewed pricing', { plan: 'pro' }]]);
  });

  it("logs 'Segment snippet included twice.' when a snippet already ran", () => {
    const logged: string[] = [];
    const win = { analytics: { invoked: true } };
    segmentSink(win, (m) => logged.push(m));
    expect(logged).toEqual([SEGMENT_TWICE]);
  });

  it('pushes Pageview and purchase to the data layer', () => {
    const win = { dataLayer: [] as unknown[] };
    const a = createAnalytics({ sink: tagManagerSink(win) });
    a.page('Home');
    a.purchase({ currency: 'EUR', value: 99, items: [{ addOnCode: 'pro', description: 'Pro', amount: 99, unitAmount: 99, quantity: 0 }] });
    expect(win.dataLayer[0]).toEqual({ event: 'Pageview', pageTitle: 'Home' });
    expect(win.dataLayer[1]).toMatchObject({ event: 'purchase', ecommerce: { currency: 'EUR', value: 99, items: [{ quantity: 1 }] } });
  });

  it('pushes the whole funnel in order: add_to_cart, begin_checkout, add_payment_info, purchase, Order Completed', () => {
    const win = { dataLayer: [] as unknown[] };
    let t = 0;
    const a = createAnalytics({ sink: tagManagerSink(win), now: () => t });
    const d = { currency: 'USD', value: 470, items: [{ addOnCode: 'performance', description: 'Premium', amount: 470, unitAmount: 470, quantity: 1 }], accountId: 'acc-1', source: 'buy' };
    a.addToCart(d);
    a.beginCheckout(d);
    a.addPaymentInfo();
    t = 1000;
    a.addPaymentInfo(); // a retry within 300000 ms: not sent again
    a.purchase({ ...d, invoiceId: 'inv-1' });
    a.orderCompleted({ ...d, invoiceId: 'inv-1' });
    expect(win.dataLayer.map((e) => (e as { event: string }).event)).toEqual(['add_to_cart', 'begin_checkout', 'add_payment_info', 'purchase', 'Order Completed']);
    expect(win.dataLayer[3]).toEqual({ event: 'purchase', accountId: 'acc-1', source: 'buy', ecommerce: { currency: 'USD', value: 470, items: d.items, transaction_id: 'inv-1' } });
  });

  it('sends nothing to the data layer for an add-to-cart or begin-checkout without currency, value or items', () => {
    const win = { dataLayer: [] as unknown[] };
    const a = createAnalytics({ sink: tagManagerSink(win) });
    expect(() => a.addToCart({ currency: '', value: 1, items: [] })).toThrow(MISSING_PURCHASE_PARAMS);
    expect(() => a.beginCheckout({ currency: 'USD', value: Number.NaN, items: [] })).toThrow(MISSING_PURCHASE_PARAMS);
    expect(win.dataLayer).toEqual([]);
  });

  it("logs 'Google Analytics Tag is not setup correctly' without a data layer", () => {
    const logged: string[] = [];
    const a = createAnalytics({ sink: fanOut(tagManagerSink({}, (m) => logged.push(m))) });
    a.page('Home');
    expect(logged).toEqual([TAG_MANAGER_MISSING]);
  });

  it('logs the missing tag as a console warning, not an error (Lighthouse counts console errors)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      createAnalytics({ sink: tagManagerSink({}) }).page('Home');
      expect(warn).toHaveBeenCalledWith(TAG_MANAGER_MISSING);
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
