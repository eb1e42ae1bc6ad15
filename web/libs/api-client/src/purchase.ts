/**
 * Gift-certificate and one-off purchases (checkout, issue 12): the wire shapes the pages
 * read, the feature flags of the runtime config, and the submit call, which needs more than
 * the one error shape (every message of a 400, requireLogin of a 401) and an
 * Idempotency-Key header.
 */
import type { Client } from 'openapi-fetch';
import { ApiError, MSG_BAD_ANSWER, parseErrorBody } from './http';
import type { components as CheckoutComponentsOf, paths as CheckoutPaths } from './generated/hangar/checkout/v1/checkout';

type CheckoutSchemas = CheckoutComponentsOf['schemas'];
import type { WirePreview } from './wire';

export interface PurchaseLine {
  type?: string;
  addOnCode?: string;
  planType?: string;
  description?: string;
  unitAmountInCents?: number;
  quantity?: number;
  amountInCents?: number;
  key?: string;
}

export interface PurchaseInvoice {
  currency?: string;
  invoiceItems?: PurchaseLine[];
  subtotalInCents?: number;
  taxInCents?: number;
  totalInCents?: number;
  discountInCents?: number;
  taxVatText?: string;
  taxJurisdiction?: string;
  reverseCharge?: boolean;
  errors?: string[];
}

/** POST /buy/api/gift/validate. */
export interface GiftValidation {
  status?: 'ok' | 'fail';
  errors?: string[];
  invoice?: PurchaseInvoice;
  accountId?: string;
  counter?: number;
  possibleCertValues?: number[];
  customMin?: number;
  customMax?: number;
  defaultCustom?: number;
  currency?: string;
}

export interface CartProduct {
  code: string;
  quantity: number;
}

/** A preconfigured one-off cart (GET /buy/api/cart/{id}, POST /buy/api/cart-create). */
export interface PresetCart {
  uuid: string;
  requestJson: { selectedProducts?: CartProduct[]; applyTax?: boolean; currency?: string; discountCode?: string };
  commerceCartType?: string;
  cartUrl?: string;
}

/** POST /buy/api/oneoff/preview. */
export interface OneOffPreview {
  invoice?: PurchaseInvoice;
  errors?: string[];
  codeErrors?: { code?: string; errorCode?: string; message?: string }[];
  items?: { code: string; quantity?: number; name?: string; priceInCents?: number }[];
  currency?: string;
  country?: string;
  businessIdAllowed?: boolean;
  counter?: number;
  email?: string;
  accountId?: string;
  loggedIn?: boolean;
  /** The EU consent checkbox is shown and must be ticked (the invoice preview's rule). */
  euConsentRequired?: boolean;
}

/** The answer of a purchase submit: success, or status fail with the messages. */
export interface PurchaseResult {
  status?: 'ok' | 'fail';
  errors?: string[];
  code?: string;
  message?: string;
  requireLogin?: boolean;
  redirectUrl?: string;
  /** Appended to redirectUrl (spec 001 §4 one-off checkout). */
  extension?: string;
  /** Opened first; the success page follows after 3 s. */
  mobileDeeplink?: string;
  invoiceId?: string;
  invoiceNumber?: string;
  invoice?: PurchaseInvoice;
  certificates?: { certificateId?: string; maskedCode?: string; balanceInCents?: number; currency?: string }[];
  /** The order's receipt as GET /buy/api/receipt/{invoiceId} answers it (a subscription's submit). */
  receipt?: CheckoutSchemas['v1GetReceiptResponse'];
  /** The refusal's finer name (ORDER_IN_PROGRESS, ATTEMPT_CLOSED, IDEMPOTENCY_KEY_REUSED, ...). */
  reason?: string;
  /** The answer's Retry-After in seconds, when it named one. */
  retryAfterSeconds?: number;
  /** The answer's HTTP status (402: declined). */
  httpStatus?: number;
  /** The wait for an order being processed ran out (errors say PROCESSING_TOO_LONG). */
  stillProcessing?: boolean;
  /**
   * The fresh preview a refused /buy order carries (a 400 or 401 refusal, QUOTE_CHANGED):
   * what the page acts on (expiring allocations, a promotion's notice, error codes).
   */
  preview?: WirePreview;
  fieldErrors?: { field?: string; message?: string }[];
  accountId?: string;
}

/**
 * 409 reason of a key whose attempt another request (or a replica that died) still holds:
 * nothing is known yet, the same key is asked again after Retry-After.
 */
export const ORDER_IN_PROGRESS = 'ORDER_IN_PROGRESS';
/**
 * 409 reason of a key whose attempt ended with no order and no charge: the key never
 * completes, so the next try is a new attempt (a new key, the card tokenised again).
 */
export const ATTEMPT_CLOSED = 'ATTEMPT_CLOSED';

/** Shown while the page waits for an order another request is still processing. */
export const STILL_PROCESSING = 'Still processing your payment…';
/** Shown when the wait ran out: the order may still complete, so the buyer is not told to pay again. */
export const PROCESSING_TOO_LONG =
  'Your payment is taking longer than usual to process. Please check your e-mail for a receipt in a few minutes before you try again.';

/** How long the pages wait in all for an order being processed, and the longest single wait. */
export const PROCESSING_BOUND_MS = 30_000;
const MAX_WAIT_MS = 10_000;
/** The wait when the answer named none (checkout's InProgressRetry). */
const DEFAULT_WAIT_MS = 2_000;

/** Whether a 409 answer says the order is still being processed (older servers: reason CONFLICT). */
export function isInProgress(status: number, code: string | undefined, reason: string | undefined): boolean {
  return status === 409 && code === 'conflict' && (reason === ORDER_IN_PROGRESS || !reason || reason === 'CONFLICT');
}

/** The Retry-After header in seconds (a number of seconds; an HTTP date is not used here). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get('Retry-After');
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

export interface WaitOptions {
  /** Called with true when the wait starts and false when it ends. */
  onWaiting?: (waiting: boolean) => void;
  /** The total bound (PROCESSING_BOUND_MS). */
  boundMs?: number;
  /** Waits ms (tests pass their own clock). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Asks again, as the server's Retry-After says, while the answer is "being processed" (wait
 * answers the seconds to wait, or undefined for any other answer), up to the bound: the
 * answer that ended it, which is still "being processed" only when the bound ran out.
 */
export async function waitWhileProcessing<T>(first: T, again: () => Promise<T>, wait: (r: T) => number | undefined, opts: WaitOptions = {}): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = opts.now ?? (() => Date.now());
  const deadline = now() + (opts.boundMs ?? PROCESSING_BOUND_MS);
  let r = first;
  let seconds = wait(r);
  if (seconds === undefined) return r;
  opts.onWaiting?.(true);
  try {
    while (seconds !== undefined) {
      const ms = Math.min(MAX_WAIT_MS, seconds > 0 ? seconds * 1000 : DEFAULT_WAIT_MS);
      if (now() + ms > deadline) return r;
      await sleep(ms);
      r = await again();
      seconds = wait(r);
    }
    return r;
  } finally {
    opts.onWaiting?.(false);
  }
}

/** A fresh idempotency key for one purchase attempt. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto as Crypto | undefined;
  if (c?.randomUUID) return c.randomUUID();
  return `k-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The Idempotency-Key of a purchase attempt (services/checkout/README.md, "Idempotency
 * keys"): the key names the order, not how it is paid, so it is kept for every click while
 * the order is the same and its outcome unknown (a lost answer, a 5xx, "being processed"):
 * the retry completes that attempt (its order, if it was charged) even with the card
 * tokenised again. A decline may be paid again under the same key. A new key after an
 * order or a refusal of the order itself, or when the order changes.
 */
export class PurchaseAttempt {
  private order?: string;
  private key?: string;

  /** The key for this order (any stable text naming what is bought). */
  keyFor(order: string): string {
    if (!this.key || this.order !== order) {
      this.order = order;
      this.key = newIdempotencyKey();
    }
    return this.key;
  }

  /** The attempt's outcome is known: the next click is a new attempt. */
  settled(): void {
    this.key = undefined;
    this.order = undefined;
  }

  /**
   * Settles the attempt unless r says its outcome is still unknown ("being processed") or
   * it is a decline, which the key may pay again. A closed attempt (ATTEMPT_CLOSED) is
   * settled: the next click is a new attempt with a new key.
   */
  after(r: PurchaseResult): void {
    if (r.status === 'fail' && r.reason !== ATTEMPT_CLOSED && (r.code === 'conflict' || r.code === 'PAYMENT_DECLINED')) return;
    this.settled();
  }
}

/** The seconds to wait before asking again when r says the order is being processed; undefined otherwise. */
export function purchaseInProgress(r: PurchaseResult): number | undefined {
  if (r.status !== 'fail' || r.code !== 'conflict' || !(r.reason === ORDER_IN_PROGRESS || !r.reason || r.reason === 'CONFLICT')) return undefined;
  return r.retryAfterSeconds ?? 0;
}

/** The checkout paths that take a purchase under an Idempotency-Key. */
export type PurchasePath = '/buy/api/gift/submit' | '/buy/api/oneoff/submit' | '/buy/api/invoice/submit';

type Post = (path: string, init: { body: unknown; headers: Record<string, string> }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Posts a purchase through the store's client with its Idempotency-Key. A refusal the page
 * shows (400 messages, 401 login, 402 declined, 409 key reused or being processed) resolves
 * with status 'fail'; anything else throws ApiError.
 */
export async function submitPurchase(checkout: Client<CheckoutPaths>, path: PurchasePath, body: unknown, key: string): Promise<PurchaseResult> {
  let r: Awaited<ReturnType<Post>>;
  try {
    r = await (checkout.POST as unknown as Post)(path, { body, headers: { 'Idempotency-Key': key } });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(0, 'internal', MSG_BAD_ANSWER, [], `POST ${path} answered with a body that is not JSON`);
  }
  const res = r.response;
  const data = ((res.ok ? r.data : r.error) ?? {}) as PurchaseResult;
  if (res.ok) return { ...data, status: data.status ?? 'ok', httpStatus: res.status };
  if (typeof data === 'object' && [400, 401, 402, 409].includes(res.status) && (data.errors?.length || data.message)) {
    const errors = data.errors?.length ? data.errors : data.fieldErrors?.length ? data.fieldErrors.map((f) => f.message ?? '') : [data.message ?? ''];
    return { ...data, status: 'fail', errors, requireLogin: data.requireLogin === true || res.status === 401, retryAfterSeconds: retryAfterSeconds(res.headers), httpStatus: res.status };
  }
  throw parseErrorBody(res.status, data);
}

export interface OrderOptions {
  /** The attempt the key belongs to (one per page). */
  attempt: PurchaseAttempt;
  /** Stable text naming what is bought: a changed order takes a new key. */
  order: string;
  /** Called with true while the page waits for an order being processed, false after. */
  onWaiting?: (waiting: boolean) => void;
}

/**
 * The store's one submit flow (/buy, /gift, the one-off cart): the order is posted under its
 * attempt's Idempotency-Key; a lost answer (a transport failure, a 5xx) is asked again once
 * with the same key, so it completes the first try instead of charging twice; an order
 * another request is still processing is asked again as Retry-After says, up to
 * PROCESSING_BOUND_MS, after which the answer says PROCESSING_TOO_LONG (the order may still
 * complete, so the key is kept). The attempt is settled by the outcome (PurchaseAttempt.after).
 */
export async function placeOrder(checkout: Client<CheckoutPaths>, path: PurchasePath, body: unknown, o: OrderOptions): Promise<PurchaseResult> {
  const key = o.attempt.keyFor(o.order);
  const send = () => submitPurchase(checkout, path, body, key);
  let r: PurchaseResult;
  try {
    r = await send();
  } catch (err) {
    if (!(err instanceof ApiError) || !err.retryable) throw err;
    r = await send();
  }
  r = await waitWhileProcessing(r, send, purchaseInProgress, { onWaiting: o.onWaiting });
  o.attempt.after(r);
  if (purchaseInProgress(r) !== undefined) return { ...r, errors: [PROCESSING_TOO_LONG], stillProcessing: true };
  return r;
}

/** Feature flags: the runtime config's "features" map (/config.json); a flag not there is off. */
export type FeatureFlags = Readonly<Record<string, boolean>>;

export async function loadFeatureFlags(fetchImpl: typeof fetch = (...a) => fetch(...a)): Promise<FeatureFlags> {
  try {
    const res = await fetchImpl('/config.json', { cache: 'no-cache', headers: { accept: 'application/json' } });
    if (!res.ok) return {};
    const doc = (await res.json()) as { features?: unknown };
    const f = doc?.features;
    if (!f || typeof f !== 'object') return {};
    return Object.fromEntries(Object.entries(f as Record<string, unknown>).map(([k, v]) => [k, v === true]));
  } catch {
    return {};
  }
}

/**
 * The store's notices: the runtime config's "notices" map (/config.json), page name to the
 * text of its closable notification banner (spec 000 §2.1). A page without one shows no
 * banner; the deployment sets them (HANGAR_NOTICE_BUY when the site is assembled).
 */
export type StoreNotices = Readonly<Record<string, string>>;

export async function loadNotices(fetchImpl: typeof fetch = (...a) => fetch(...a)): Promise<StoreNotices> {
  try {
    const res = await fetchImpl('/config.json', { cache: 'no-cache', headers: { accept: 'application/json' } });
    if (!res.ok) return {};
    const n = ((await res.json()) as { notices?: unknown })?.notices;
    if (!n || typeof n !== 'object') return {};
    return Object.fromEntries(Object.entries(n as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== ''));
  } catch {
    return {};
  }
}

/**
 * The store's outside links: the runtime config's "links" (/config.json), written when the
 * site is assembled (HANGAR_APP_STORE_URL, HANGAR_SALES_EMAIL; docs/web.md "Runtime
 * configuration"). A missing or malformed entry keeps its default.
 */
export interface StoreLinks {
  /** The app's App Store listing: the success page's "Download the app". */
  appStore: string;
  /** The sales team's address: "contact sales" for more licences than the page sells. */
  salesEmail: string;
  /** The legal pages named where the buyer pays (HANGAR_TERMS_URL, HANGAR_PRIVACY_URL, HANGAR_REFUND_POLICY_URL). */
  terms: string;
  privacy: string;
  refunds: string;
}

/**
 * The development values (tools/site-links.mjs DEV_LINKS). An assembled site's config.json
 * always has real links outside development mode (the site is not assembled without them),
 * so these serve only the Vite dev server, a development build and the unit tests.
 */
export const DEFAULT_LINKS: StoreLinks = {
  appStore: 'https://apps.apple.com/app/hangar',
  salesEmail: 'sales@hangar.example',
  terms: 'https://hangar.example/legal/terms-of-sale',
  privacy: '/privacy-policy',
  refunds: 'https://hangar.example/legal/refunds',
};

export async function loadLinks(fetchImpl: typeof fetch = (...a) => fetch(...a)): Promise<StoreLinks> {
  try {
    const res = await fetchImpl('/config.json', { cache: 'no-cache', headers: { accept: 'application/json' } });
    if (!res.ok) return DEFAULT_LINKS;
    const l = ((await res.json()) as { links?: Record<string, unknown> })?.links ?? {};
    const https = (v: unknown) => typeof v === 'string' && /^https:\/\/[^\s/]+/.test(v);
    const email = (v: unknown) => typeof v === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v);
    const page = (v: unknown) => https(v) || (typeof v === 'string' && /^\/(?!\/)\S*$/.test(v));
    return {
      appStore: https(l.appStore) ? (l.appStore as string) : DEFAULT_LINKS.appStore,
      salesEmail: email(l.salesEmail) ? (l.salesEmail as string) : DEFAULT_LINKS.salesEmail,
      terms: page(l.terms) ? (l.terms as string) : DEFAULT_LINKS.terms,
      privacy: page(l.privacy) ? (l.privacy as string) : DEFAULT_LINKS.privacy,
      refunds: page(l.refunds) ? (l.refunds as string) : DEFAULT_LINKS.refunds,
    };
  } catch {
    return DEFAULT_LINKS;
  }
}

export function featureOn(flags: FeatureFlags, name: string): boolean {
  return flags[name] === true;
}

/** The logged-in user as GET /buy/api/me answers it. */
export interface Me {
  loggedIn?: boolean;
  accountUuid?: string;
  username?: string;
  email?: string;
  isEmployee?: boolean;
  isCreditCardAdmin?: boolean;
}
