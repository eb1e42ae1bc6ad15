import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiError, DEFAULT_TIMEOUT_MS, MSG_BAD_ANSWER, parseErrorBody, transportError, XSRF_PRIMER_PATH, xsrfRenewed, xsrfToken, type ClientOptions } from './http';
import type { paths as AllocationPaths } from './generated/hangar/allocation/v1/allocation';
import type { paths as CatalogPaths } from './generated/hangar/catalog/v1/catalog';
import type { paths as CheckoutPaths } from './generated/hangar/checkout/v1/checkout';
import type { paths as IdentityPaths } from './generated/hangar/identity/v1/identity';
import type { paths as OrganizationsPaths } from './generated/hangar/identity/v1/organizations';
import type { paths as PaymentsPaths } from './generated/hangar/payments/v1/payments';

const SAFE = ['GET', 'HEAD', 'OPTIONS'];
const isSafe = (method: string) => SAFE.includes(method.toUpperCase());

type Send = (url: string, init: RequestInit) => Promise<Response>;

/** One call in flight: its timeout, and the request as it can be sent again. */
interface Call {
  what: string;
  timer: ReturnType<typeof setTimeout>;
  timedOut: boolean;
  outer: AbortSignal;
  controller: AbortController;
  onAbort: () => void;
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

/**
 * The middleware of every client: it echoes the XSRF cookie on non-safe methods (a safe
 * call first gets one when the page has none yet) and sends a refused post once more when a
 * concurrent first call replaced the cookie; it bounds each call by a timeout; and it turns
 * transport failures into ApiError (status 0), so callers handle one error type.
 */
export function hangarMiddleware(options: ClientOptions, send: Send): Middleware {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cookie = options.cookie ?? (() => (typeof document === 'undefined' ? '' : document.cookie));
  const calls = new Map<string, Call>();
  const finish = (id: string) => {
    const call = calls.get(id);
    if (!call) return undefined;
    calls.delete(id);
    clearTimeout(call.timer);
    call.outer.removeEventListener('abort', call.onAbort);
    return call;
  };
  const request = (c: Call) => new Request(c.url, { method: c.method, headers: c.headers, body: c.body || undefined, signal: c.controller.signal });
  return {
    async onRequest({ request: req, id }) {
      const headers = new Headers(req.headers);
      headers.set('accept', 'application/json');
      if (!isSafe(req.method)) {
        const token = await xsrfToken(cookie, () => send(new URL(XSRF_PRIMER_PATH, req.url).href, { credentials: 'same-origin', signal: req.signal }));
        if (token) headers.set('X-XSRF-TOKEN', token);
      }
      const controller = new AbortController();
      const call: Call = {
        what: `${req.method} ${new URL(req.url).pathname}`,
        timer: setTimeout(() => {
          call.timedOut = true;
          controller.abort();
        }, timeoutMs),
        timedOut: false,
        outer: req.signal,
        controller,
        onAbort: () => controller.abort(),
        url: req.url,
        method: req.method,
        headers,
        body: isSafe(req.method) ? undefined : await req.text(),
      };
      req.signal.addEventListener('abort', call.onAbort, { once: true });
      calls.set(id, call);
      return request(call);
    },
    async onResponse({ response, id }) {
      const call = calls.get(id);
      const fresh = call && xsrfRenewed(response, call.headers.get('X-XSRF-TOKEN'), cookie);
      if (!call || !fresh) {
        finish(id);
        return undefined;
      }
      call.headers.set('X-XSRF-TOKEN', fresh);
      try {
        return await transport(send)(request(call));
      } catch (err) {
        throw transportError(call.what, err, call.timedOut, call.outer.aborted, timeoutMs);
      } finally {
        finish(id);
      }
    },
    onError({ error, request: req, id }) {
      const call = finish(id);
      if (error instanceof ApiError) return error;
      return transportError(call?.what ?? `${req.method} ${req.url}`, error, call?.timedOut ?? false, call?.outer.aborted ?? false, timeoutMs);
    },
  };
}

/** Sends a Request as (url, init), the shape pages' test fakes read. */
function transport(send: Send): (req: Request) => Promise<Response> {
  return async (req) => send(req.url, { method: req.method, headers: req.headers, body: isSafe(req.method) ? undefined : (await req.text()) || undefined, signal: req.signal, credentials: 'same-origin' });
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
  allocation: Client<AllocationPaths>;
  catalog: Client<CatalogPaths>;
  checkout: Client<CheckoutPaths>;
  identity: Client<IdentityPaths>;
  /** identity's organization routes (members, invitations): a document of their own. */
  organizations: Client<OrganizationsPaths>;
  payments: Client<PaymentsPaths>;
}

/**
 * The store's one HTTP client: openapi-fetch over every service document, all on the same
 * origin (the edge / Ingress routes the paths), every call through hangarMiddleware.
 */
export function createTypedClients(options: ClientOptions = {}): TypedClients {
  const origin = typeof window !== 'undefined' && window.location ? window.location.origin : 'http://localhost';
  const baseUrl = (options.baseUrl ?? origin).replace(/\/$/, '');
  const send: Send = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const middleware = hangarMiddleware(options, send);
  const fetch = transport(send);
  const client = <P extends {}>() => {
    const c = createClient<P>({ baseUrl, fetch });
    c.use(middleware);
    return c;
  };
  return { allocation: client<AllocationPaths>(), catalog: client<CatalogPaths>(), checkout: client<CheckoutPaths>(), identity: client<IdentityPaths>(), organizations: client<OrganizationsPaths>(), payments: client<PaymentsPaths>() };
}
