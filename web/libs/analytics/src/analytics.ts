import { noopSink, type AnalyticsEvent, type AnalyticsLineItem, type AnalyticsSink, type PurchaseDetails } from './events';

/** Add-payment-info reaches the social-ad pixel at most once per 300000 ms. */
export const ADD_PAYMENT_INFO_THROTTLE_MS = 300_000;

export const MISSING_PURCHASE_PARAMS = 'missing required google purchase related event params';

export interface AnalyticsOptions {
  sink?: AnalyticsSink;
  /** Injected clock (ms). */
  now?: () => number;
  /** Where the pixel's complaints go. */
  logError?: (message: string) => void;
}

export interface Analytics {
  page(title: string): void;
  identify(accountId: string, traits?: Record<string, string | number | boolean>): void;
  track(event: string, properties?: Record<string, unknown>): void;
  link(event: string, href: string): void;
  /** Add-to-cart and purchase fire when an invoice is received. */
  invoiceReceived(details: PurchaseDetails): void;
  /** The cart as priced (a preview invoice arrived). Throws MISSING_PURCHASE_PARAMS like purchase. */
  addToCart(details: PurchaseDetails): void;
  /** The buyer pressed Purchase. Throws MISSING_PURCHASE_PARAMS like purchase. */
  beginCheckout(details: PurchaseDetails): void;
  /** Throws MISSING_PURCHASE_PARAMS when currency, value or items are missing. */
  purchase(details: PurchaseDetails): void;
  orderCompleted(details: PurchaseDetails): void;
  /** The social pixel's purchase; logs an error (does not throw) when currency or value is missing. */
  socialPurchase(currency: string | undefined, value: number | undefined): void;
  /** Throttled to one per ADD_PAYMENT_INFO_THROTTLE_MS. */
  addPaymentInfo(): void;
}

/** Quantity defaults to 1 when not positive. */
export function normalizeItem(item: AnalyticsLineItem): AnalyticsLineItem {
  const quantity = Number.isFinite(item.quantity) && item.quantity > 0 ? item.quantity : 1;
  return { ...item, quantity };
}

function hasPurchaseParams(d: Partial<PurchaseDetails>): d is PurchaseDetails {
  return Boolean(d.currency) && typeof d.value === 'number' && Number.isFinite(d.value) && Array.isArray(d.items);
}

export function createAnalytics(options: AnalyticsOptions = {}): Analytics {
  const sink = options.sink ?? noopSink;
  const now = options.now ?? (() => Date.now());
  const logError = options.logError ?? ((m: string) => console.error(m));
  let lastPaymentInfoAt: number | undefined;

  const send = (e: AnalyticsEvent) => {
    try {
      sink.send(e);
    } catch (err) {
      // A broken tag must never break the store.
      logError(`analytics sink failed: ${(err as Error).message}`);
    }
  };

  const purchaseEvent = (type: 'purchase' | 'order_completed' | 'add_to_cart' | 'begin_checkout', d: PurchaseDetails) => {
    if (!hasPurchaseParams(d)) throw new Error(MISSING_PURCHASE_PARAMS);
    send({ ...d, type, items: d.items.map(normalizeItem) });
  };

  return {
    page: (title) => send({ type: 'page', name: title }),
    identify: (accountId, traits) => send({ type: 'identify', accountId, traits }),
    track: (event, properties) => send({ type: 'track', event, properties }),
    link: (event, href) => send({ type: 'link', event, href }),
    invoiceReceived(d) {
      purchaseEvent('add_to_cart', d);
      purchaseEvent('purchase', d);
    },
    addToCart: (d) => purchaseEvent('add_to_cart', d),
    beginCheckout: (d) => purchaseEvent('begin_checkout', d),
    purchase: (d) => purchaseEvent('purchase', d),
    orderCompleted: (d) => purchaseEvent('order_completed', d),
    socialPurchase(currency, value) {
      if (!currency || typeof value !== 'number' || !Number.isFinite(value)) {
        logError('social purchase event: missing currency or value');
        return;
      }
      send({ type: 'social_purchase', currency, value });
    },
    addPaymentInfo() {
      const t = now();
      if (lastPaymentInfoAt !== undefined && t - lastPaymentInfoAt < ADD_PAYMENT_INFO_THROTTLE_MS) return;
      lastPaymentInfoAt = t;
      send({ type: 'social_add_payment_info' });
    },
  };
}

/** The page-wide instance; a no-op until the host installs a real sink. */
let current: Analytics = createAnalytics();

/**
 * Each federated remote bundles its own copy of this library, so the instance the shell
 * installs is also kept on the page (globalThis) where every copy finds it.
 */
const GLOBAL_KEY = '__hangarAnalytics';

export function analytics(): Analytics {
  return ((globalThis as Record<string, unknown>)[GLOBAL_KEY] as Analytics | undefined) ?? current;
}

export function installAnalytics(options: AnalyticsOptions): Analytics {
  current = createAnalytics(options);
  (globalThis as Record<string, unknown>)[GLOBAL_KEY] = current;
  return current;
}
