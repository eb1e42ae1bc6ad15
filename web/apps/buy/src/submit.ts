import { ApiError, isInProgress, retryAfterSeconds, unwrap, type CheckoutComponents, type WireConfiguration, type WirePreview } from '@hangar/api-client';
import { apiClient } from './api';

export type WireSubmit = CheckoutComponents['schemas']['v1SubmitInvoiceResponse'];

export type WirePromoCheck = CheckoutComponents['schemas']['v1ValidatePromoResponse'];

/**
 * Asks checkout whether a code applies to this configuration, and whether it is a promo
 * or a gift certificate: the page does not guess from the code's shape.
 */
export async function validatePromo(code: string, configuration: WireConfiguration): Promise<WirePromoCheck> {
  return unwrap(apiClient().checkout.POST('/buy/api/promo/validate', { body: { code, configuration } }));
}

export interface SubmitRequest {
  configuration: WireConfiguration;
  nonce?: string;
  paymentMethodToken?: string;
  idempotencyKey: string;
  quoteId?: string;
  deeplinkOnSuccess?: string;
  /** The buyer ticked the optional marketing checkbox. */
  marketingConsent?: boolean;
}

export type SubmitOutcome =
  | { ok: true; result: WireSubmit }
  /**
   * Nothing was charged; show the errors. code is the error's class (invalid_argument,
   * payment_declined, conflict, ...), reason its finer name (a refused order and
   * QUOTE_CHANGED carry the fresh preview, PAYMENT_DECLINED, IDEMPOTENCY_KEY_REUSED, CURRENCY_NOT_ALLOWED_FOR_ACCOUNT,
   * ATTEMPT_CLOSED: start a new attempt). retryable: the outcome is unknown (a lost answer,
   * a 5xx), asked again once with the same key; inProgress: another request holds the key
   * (ORDER_IN_PROGRESS), asked again with it after retryAfterSeconds.
   */
  | { ok: false; status: number; code: string; reason: string; errors: string[]; requireLogin: boolean; preview?: WirePreview; retryable: boolean; inProgress: boolean; retryAfterSeconds?: number };

/**
 * POST /buy/api/invoice/submit with the Idempotency-Key header: the same key answers
 * the first outcome, so a retry after a lost answer never charges twice.
 */
export async function submit(req: SubmitRequest): Promise<SubmitOutcome> {
  const body = {
    ...req.configuration,
    quoteId: req.quoteId,
    nonce: req.nonce,
    paymentMethodToken: req.paymentMethodToken,
    deeplinkOnSuccess: req.deeplinkOnSuccess,
    marketingConsent: req.marketingConsent,
  } as WireConfiguration;
  let r;
  try {
    r = await apiClient().checkout.POST('/buy/api/invoice/submit', { body, headers: { 'Idempotency-Key': req.idempotencyKey } });
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError(0, 'unavailable', (e as Error).message);
    return { ok: false, status: err.status, code: err.code, reason: '', errors: [err.message], requireLogin: false, retryable: err.retryable, inProgress: false };
  }
  if (r.response.ok && r.data) return { ok: true, result: r.data };
  // The one error body (errs.Body): code, message, reason, status 'fail', errors, msg, and
  // fieldErrors, requireLogin, preview when the refusal carries them.
  const e = (r.error ?? {}) as { code?: string; message?: string; reason?: string; errors?: string[]; fieldErrors?: { message?: string }[]; requireLogin?: boolean; preview?: WirePreview };
  const status = r.response.status;
  const errors = e.errors?.length ? e.errors : e.fieldErrors?.length ? e.fieldErrors.map((f) => f.message ?? '') : [e.message || `The payment could not be completed (${status}).`];
  return {
    ok: false,
    status,
    code: e.code ?? '',
    reason: e.reason ?? '',
    errors,
    requireLogin: e.requireLogin === true || status === 401,
    preview: e.preview,
    retryable: status === 0 || status === 429 || status >= 500,
    // An order still being processed answers again after the wait; a changed quote, a reused
    // key or a closed attempt does not.
    inProgress: isInProgress(status, e.code, e.reason),
    retryAfterSeconds: retryAfterSeconds(r.response.headers),
  };
}

/** One key per purchase attempt: retries of the attempt reuse it, a changed order gets a new one. */
export function newIdempotencyKey(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? `buy-${crypto.randomUUID()}` : `buy-${Date.now()}-${Math.random().toString(36).slice(2)}`;
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
