/**
 * The data-layer events the store emits (spec 001 §7 "Analytics", 000 §7):
 * customer-data identify/track/page/link events, add-to-cart and purchase on
 * invoice receipt, 'Order Completed' after a successful payment, and the
 * social-ad pixel's purchase and add-payment-info events.
 */

/** One purchased line, as sent to analytics. */
export interface AnalyticsLineItem {
  /** addOnCode, or the gift-certificate type for gift lines. */
  addOnCode: string;
  description: string;
  /** Line amount in major units (cents / 100). */
  amount: number;
  /** Unit amount in major units. */
  unitAmount: number;
  /** At least 1. */
  quantity: number;
  planType?: string;
}

export interface PurchaseDetails {
  currency: string;
  /** Order total in major units. */
  value: number;
  items: AnalyticsLineItem[];
  invoiceId?: string;
  accountId?: string;
  source?: string;
}

export type AnalyticsEvent =
  | { type: 'page'; name: string }
  | { type: 'identify'; accountId: string; traits?: Record<string, string | number | boolean> }
  | { type: 'track'; event: string; properties?: Record<string, unknown> }
  | { type: 'link'; event: string; href: string }
  | { type: 'add_to_cart'; currency: string; value: number; items: AnalyticsLineItem[]; accountId?: string; source?: string }
  | { type: 'begin_checkout'; currency: string; value: number; items: AnalyticsLineItem[]; accountId?: string; source?: string }
  | { type: 'purchase'; currency: string; value: number; items: AnalyticsLineItem[]; invoiceId?: string; accountId?: string; source?: string }
  | { type: 'order_completed'; currency: string; value: number; items: AnalyticsLineItem[]; invoiceId?: string; accountId?: string; source?: string }
  | { type: 'social_purchase'; currency: string; value: number }
  | { type: 'social_add_payment_info' };

export type AnalyticsEventType = AnalyticsEvent['type'];

/** Where events go: a tag manager, a customer-data service, a test spy. */
export interface AnalyticsSink {
  send(event: AnalyticsEvent): void;
}

/** The default sink: drops everything. */
export const noopSink: AnalyticsSink = { send: () => undefined };
