import { ApiError, unwrap, type WireConfiguration, type WireInvoice, type WireValidateInvoice } from '@hangar/api-client';
import { apiClient } from './api';

export async function validate(configuration: WireConfiguration): Promise<WireValidateInvoice> {
  return unwrap(apiClient().checkout.POST('/buy/api/invoice/validate', { body: configuration }));
}

export interface SubmitRequest {
  configuration: WireConfiguration;
  nonce?: string;
  paymentMethodToken?: string;
  idempotencyKey: string;
  quoteId?: string;
  quoteHash?: string;
}

/** Payment success (spec 000 §7). */
export interface SubmitResult {
  status?: string;
  errors?: string[];
  accountId?: string;
  redirectUrl?: string;
  extension?: string;
  mobileDeeplink?: string;
  invoice?: WireInvoice;
  invoiceId?: string;
  googleConversionCodes?: string[];
}

/** POST /buy/api/invoice/submit. */
export async function submit(req: SubmitRequest): Promise<SubmitResult> {
  try {
    return await apiClient().http.request<SubmitResult>('POST', '/buy/api/invoice/submit', { body: req });
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(0, 'unknown', (e as Error).message);
  }
}

/** One key per purchase attempt: retries of the attempt reuse it, a changed order gets a new one. */
export function newIdempotencyKey(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? `buy-${crypto.randomUUID()}` : `buy-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** The success page's URL: the server's redirect (with its extension), or /buy/success?invoiceId=. */
export function successUrl(r: SubmitResult, kiosk: boolean): string {
  let url = r.redirectUrl || (r.invoiceId ? `/buy/success?invoiceId=${encodeURIComponent(r.invoiceId)}` : '/buy/success');
  if (r.extension) url += r.extension;
  if (kiosk) url += `${url.includes('?') ? '&' : '?'}kiosk=true`;
  return url;
}
