import type { AnalyticsEvent, AnalyticsSink } from './events';

/** Spec 001 §8: logged, never thrown. */
export const SEGMENT_TWICE = 'Segment snippet included twice.';
export const TAG_MANAGER_MISSING = 'Google Analytics Tag is not setup correctly';

/** The customer-data (segment-style) library's page-global queue. */
export interface SegmentLike {
  invoked?: boolean;
  initialize?: boolean;
  page?: (name?: string) => void;
  identify?: (id: string, traits?: object) => void;
  track?: (event: string, props?: object) => void;
  trackLink?: (el: unknown, event: string) => void;
  [k: string]: unknown;
}

interface HookWindow {
  analytics?: SegmentLike | unknown[];
  dataLayer?: unknown[];
}

/**
 * The customer-data hook: identify, track, page and link events go to the segment-style
 * queue on window.analytics. Installing it where a snippet already ran logs 'Segment
 * snippet included twice.' and reuses the existing queue, as the snippet itself does.
 */
export function segmentSink(win: HookWindow, logError: (m: string) => void = (m) => console.error(m)): AnalyticsSink {
  const existing = win.analytics as SegmentLike | undefined;
  if (existing && (existing.invoked || existing.initialize)) logError(SEGMENT_TWICE);
  else {
    // The snippet's stub: calls queue until the real library replaces it.
    const queue: unknown[] = [];
    const stub = queue as unknown as Record<string, unknown>;
    for (const m of ['page', 'identify', 'track', 'trackLink']) stub[m] = (...args: unknown[]) => queue.push([m, ...args]);
    stub.invoked = true;
    win.analytics = queue;
  }
  const call = (method: string, ...args: unknown[]) => {
    const a = win.analytics as Record<string, unknown> | undefined;
    const fn = a?.[method];
    if (typeof fn === 'function') (fn as (...x: unknown[]) => void)(...args);
  };
  return {
    send(e: AnalyticsEvent) {
      switch (e.type) {
        case 'page':
          return call('page', e.name);
        case 'identify':
          return call('identify', e.accountId, e.traits);
        case 'track':
          return call('track', e.event, e.properties);
        case 'link':
          return call('track', e.event, { href: e.href });
        case 'order_completed':
          return call('track', 'Order Completed', { currency: e.currency, value: e.value, products: e.items, order_id: e.invoiceId });
        default:
          return undefined;
      }
    },
  };
}

/** The event names on window.dataLayer. */
export const DATA_LAYER_EVENTS = {
  page: 'Pageview',
  add_to_cart: 'add_to_cart',
  begin_checkout: 'begin_checkout',
  purchase: 'purchase',
  order_completed: 'Order Completed',
  social_add_payment_info: 'add_payment_info',
} as const;

/**
 * The tag-manager hook: Pageview, add_to_cart, begin_checkout, purchase, 'Order Completed'
 * and add_payment_info (already throttled by the analytics instance) go to
 * window.dataLayer, commerce events in the tag manager's `ecommerce` shape with the
 * account id and source. When the tag manager's data layer is not on the page the event
 * is dropped and 'Google Analytics Tag is not setup correctly' is logged (once), as a
 * warning: a deployment without the tag is a set-up matter, not an error of the page (an
 * error in the console costs the page Lighthouse's best-practices score on every route).
 */
export function tagManagerSink(win: HookWindow, logError: (m: string) => void = (m) => console.warn(m)): AnalyticsSink {
  let warned = false;
  const push = (entry: object) => {
    if (!Array.isArray(win.dataLayer)) {
      // Once per page: the missing tag is a set-up problem, not one per event.
      if (!warned) logError(TAG_MANAGER_MISSING);
      warned = true;
      return;
    }
    win.dataLayer.push(entry);
  };
  return {
    send(e: AnalyticsEvent) {
      switch (e.type) {
        case 'page':
          return push({ event: DATA_LAYER_EVENTS.page, pageTitle: e.name });
        case 'add_to_cart':
        case 'begin_checkout':
        case 'purchase':
        case 'order_completed':
          return push({
            event: DATA_LAYER_EVENTS[e.type],
            accountId: e.accountId,
            source: e.source,
            ecommerce: { currency: e.currency, value: e.value, items: e.items, transaction_id: 'invoiceId' in e ? e.invoiceId : undefined },
          });
        case 'social_add_payment_info':
          return push({ event: DATA_LAYER_EVENTS.social_add_payment_info });
        default:
          return undefined;
      }
    },
  };
}

/** Sends every event to each sink; one failing sink does not stop the others. */
export function fanOut(...sinks: AnalyticsSink[]): AnalyticsSink {
  return {
    send(e) {
      for (const s of sinks) {
        try {
          s.send(e);
        } catch (err) {
          console.error(`analytics: ${(err as Error).message}`);
        }
      }
    },
  };
}
