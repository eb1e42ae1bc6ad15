import createClient, { type Client } from 'openapi-fetch';
import { ApiError, DEFAULT_TIMEOUT_MS, MSG_BAD_ANSWER, parseErrorBody, transportError, XSRF_PRIMER_PATH, xsrfRenewed, xsrfToken, type ClientOptions } from './http';
import type { paths as CatalogPaths } from './generated/hangar/catalog/v1/catalog';
import type { paths as CheckoutPaths } from './generated/hangar/checkout/v1/checkout';
import type { paths as IdentityPaths } from './generated/hangar/identity/v1/identity';
import type { paths as PaymentsPaths } from './generated/hangar/payments/v1/payments';

const SAFE = ['GET', 'HEAD', 'OPTIONS'];

/**
 * The fetch every typed client uses: echoes the XSRF cookie on non-safe methods,
 * bounds each call by a timeout, and turns transport failures into ApiError
 * (status 0) so callers handle one error type.
 */
export function hangarFetch(options: ClientOptions = {}): (input: Request) => Promise<Response> {
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cookie = options.cookie ?? (() => (typeof document === 'undefined' ? '' : document.cookie));
  return async (input: Request) => {
    const what = `${input.method} ${new URL(input.url, 'http://x').pathname}`;
    const headers = new Headers(input.headers);
    headers.set('accept', 'application/json');
    if (!SAFE.includes(input.method.toUpperCase())) {
      const token = await xsrfToken(cookie, () => doFetch(new URL(XSRF_PRIMER_PATH, input.url).href, { credentials: 'same-origin', signal: input.signal }));
      if (token) headers.set('X-XSRF-TOKEN', token);
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const outer = input.signal;
    const onAbort = () => controller.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    try {
      const body = SAFE.includes(input.method.toUpperCase()) ? undefined : await input.text();
      const send = () => doFetch(input.url, { method: input.method, headers, body: body || undefined, signal: controller.signal, credentials: 'same-origin' });
      const res = await send();
      const fresh = xsrfRenewed(res, headers.get('X-XSRF-TOKEN'), cookie);
      if (!fresh) return res;
      headers.set('X-XSRF-TOKEN', fresh);
      return await send();
    } catch (err) {
      throw transportError(what, err, timedOut, outer?.aborted === true, timeoutMs);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  };
}

/** openapi-fetch's answer -> the data, or an ApiError in the one error shape. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: { data?: T; error?: unknown; response: Response };
  try {
    r = await call;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // openapi-fetch fails on a body that is not JSON.
    throw new ApiError(0, 'internal', MSG_BAD_ANSWER, [], (err as Error)?.message ?? String(err));
  }
  if (!r.response.ok) throw parseErrorBody(r.response.status, r.error);
  return (r.data ?? ({} as T)) as T;
}

export interface TypedClients {
  catalog: Client<CatalogPaths>;
  checkout: Client<CheckoutPaths>;
  identity: Client<IdentityPaths>;
  payments: Client<PaymentsPaths>;
}

/** One openapi-fetch client per service document, all on the same origin (the edge / Ingress). */
export function createTypedClients(options: ClientOptions = {}): TypedClients {
  const origin = typeof window !== 'undefined' && window.location ? window.location.origin : 'http://localhost';
  const baseUrl = (options.baseUrl ?? origin).replace(/\/$/, '');
  const f = hangarFetch(options);
  return {
    catalog: createClient<CatalogPaths>({ baseUrl, fetch: f }),
    checkout: createClient<CheckoutPaths>({ baseUrl, fetch: f }),
    identity: createClient<IdentityPaths>({ baseUrl, fetch: f }),
    payments: createClient<PaymentsPaths>({ baseUrl, fetch: f }),
  };
}
