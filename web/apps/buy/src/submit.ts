import { placeOrder, unwrap, type CheckoutComponents, type PurchaseAttempt, type PurchaseResult, type WireConfiguration } from '@hangar/api-client';
import { apiClient } from './api';

// Loaded when the buyer pays or applies a code (usePurchase, the promo box), not with the
// page: the submit flow stays out of /buy's initial JavaScript.
export { PurchaseAttempt } from '@hangar/api-client';
export { payWithCardReader } from '@hangar/storefront';

export type WireSubmit = CheckoutComponents['schemas']['v1SubmitInvoiceResponse'];

export type WirePromoCheck = CheckoutComponents['schemas']['v1ValidatePromoResponse'];

/**
 * Asks checkout whether a code applies to this configuration, and whether it is a promo
 * or a gift certificate: the page does not guess from the code's shape.
 */
export async function validatePromo(code: string, configuration: WireConfiguration): Promise<WirePromoCheck> {
  return unwrap(apiClient().checkout.POST('/buy/api/promo/validate', { body: { code, configuration } }));
}

/**
 * Checkout's validation of the cart before payment (POST /buy/api/invoice/validate): its
 * problems (the e-mail, the organization, the agreements), none when it would go on. Nothing
 * is charged or stored; an unanswered check adds nothing (submit validates again).
 */
export async function validateCart(configuration: WireConfiguration): Promise<string[]> {
  try {
    const { data, error } = await apiClient().checkout.POST('/buy/api/invoice/validate', { body: configuration });
    const body = (data ?? error) as { status?: string; errors?: string[] } | undefined;
    return body?.status === 'ok' ? [] : (body?.errors ?? []).filter(Boolean);
  } catch {
    return [];
  }
}

export interface SubmitRequest {
  configuration: WireConfiguration;
  nonce?: string;
  paymentMethodToken?: string;
  quoteId?: string;
  deeplinkOnSuccess?: string;
  /** The buyer ticked the optional marketing checkbox. */
  marketingConsent?: boolean;
}

/** POST /buy/api/invoice/submit's body: the configuration with the payment and the quote. */
export function submitBody(req: SubmitRequest): WireConfiguration {
  return {
    ...req.configuration,
    quoteId: req.quoteId,
    nonce: req.nonce,
    paymentMethodToken: req.paymentMethodToken,
    deeplinkOnSuccess: req.deeplinkOnSuccess,
    marketingConsent: req.marketingConsent,
  } as WireConfiguration;
}

/**
 * Submits the order through the store's one submit flow (placeOrder): the attempt's
 * Idempotency-Key, keyed by the quote, so the same order retried keeps it.
 */
export function submitOrder(req: SubmitRequest, attempt: PurchaseAttempt, quote: string, onWaiting?: (waiting: boolean) => void): Promise<PurchaseResult> {
  return placeOrder(apiClient().checkout, '/buy/api/invoice/submit', submitBody(req), { attempt, order: quote, onWaiting });
}

/** A path of this site: '/x', never '//host' or a URL of another origin. */
export function samePath(u: string | undefined): string | undefined {
  return u && u.startsWith('/') && !u.startsWith('//') && !u.startsWith('/\\') ? u : undefined;
}

/** The success page's URL: the server's redirect (with its extension), or /buy/success?invoiceId=. */
export function successUrl(r: Partial<Pick<WireSubmit, 'redirectUrl' | 'invoiceId' | 'extension'>>, kiosk: boolean, opts: { newAccount?: boolean } = {}): string {
  let url = samePath(r.redirectUrl) || (r.invoiceId ? `/buy/success?invoiceId=${encodeURIComponent(r.invoiceId)}` : '/buy/success');
  if (r.extension) url += r.extension;
  if (kiosk) url += `${url.includes('?') ? '&' : '?'}kiosk=true`;
  // A guest's order creates the account (an existing one must log in first), so the success
  // page offers to set its password. It only shows a link: nothing is granted by it.
  if (opts.newAccount) url += `${url.includes('?') ? '&' : '?'}newAccount=1`;
  return url;
}
