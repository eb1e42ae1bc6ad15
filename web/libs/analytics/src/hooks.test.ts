import { describe, expect, it } from 'vitest';
import { SEGMENT_TWICE, TAG_MANAGER_MISSING, fanOut, segmentSink, tagManagerSink } from './hooks';
import { createAnalytics } from './analytics';

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

  it("logs 'Google Analytics Tag is not setup correctly' without a data layer", () => {
    const logged: string[] = [];
    const a = createAnalytics({ sink: fanOut(tagManagerSink({}, (m) => logged.push(m))) });
    a.page('Home');
    expect(logged).toEqual([TAG_MANAGER_MISSING]);
  });
});
