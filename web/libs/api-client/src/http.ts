/** One error shape for every service (the edge's error model), plus transport failures. */
export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  /** Server code such as 'invalid_argument', or 'unavailable' / 'deadline_exceeded' for transport failures. */
  readonly code: string;
  readonly fieldErrors: readonly FieldError[];

  constructor(status: number, code: string, message: string, fieldErrors: readonly FieldError[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
  }

  /** Worth retrying: the service could not be reached, timed out, or failed on its side. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface ClientOptions {
  /** Prefix for every path; '' means same origin (the edge/Ingress). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** A call slower than this fails with code 'deadline_exceeded'. */
  timeoutMs?: number;
  /** Reads the XSRF-TOKEN cookie; injectable for tests. */
  cookie?: () => string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** grpc-gateway's default status codes, for services that answer with a google.rpc.Status. */
const GRPC_CODES = [
  'ok', 'canceled', 'unknown', 'invalid_argument', 'deadline_exceeded', 'not_found', 'already_exists',
  'permission_denied', 'resource_exhausted', 'failed_precondition', 'aborted', 'out_of_range',
  'unimplemented', 'internal', 'unavailable', 'data_loss', 'unauthenticated',
];

function codeFor(status: number): string {
  if (status === 400) return 'invalid_argument';
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'not_found';
  if (status === 409) return 'already_exists';
  if (status === 429) return 'resource_exhausted';
  if (status === 503) return 'unavailable';
  if (status === 504) return 'deadline_exceeded';
  return 'internal';
}

/** Reads {code, message, fieldErrors} (or a google.rpc.Status) from an error body. */
export function parseErrorBody(status: number, body: unknown): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const code =
    typeof b.code === 'string' && b.code !== ''
      ? b.code
      : typeof b.code === 'number'
        ? (GRPC_CODES[b.code] ?? codeFor(status))
        : codeFor(status);
  const message = typeof b.message === 'string' && b.message !== '' ? b.message : `request failed with status ${status}`;
  const fieldErrors = Array.isArray(b.fieldErrors)
    ? b.fieldErrors
        .filter((f): f is FieldError => !!f && typeof f === 'object' && typeof (f as FieldError).field === 'string')
        .map((f) => ({ field: f.field, message: String(f.message ?? '') }))
    : [];
  return new ApiError(status, code, message, fieldErrors);
}

function readCookie(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export type Query = Record<string, string | number | undefined | null>;

export interface HttpClient {
  request<T>(method: string, path: string, init?: { query?: Query; body?: unknown; signal?: AbortSignal }): Promise<T>;
}

export function createHttpClient(options: ClientOptions = {}): HttpClient {
  const baseUrl = (options.baseUrl ?? '').replace(/\/$/, '');
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cookie = options.cookie ?? (() => (typeof document === 'undefined' ? '' : document.cookie));

  return {
    async request<T>(method: string, path: string, init: { query?: Query; body?: unknown; signal?: AbortSignal } = {}) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(init.query ?? {})) {
        if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
      }
      const url = `${baseUrl}${path}${qs.size > 0 ? `?${qs.toString()}` : ''}`;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      if (!['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase())) {
        // Non-safe methods echo the XSRF cookie in a header.
        const token = readCookie(cookie(), 'XSRF-TOKEN');
        if (token) headers['X-XSRF-TOKEN'] = token;
      }

      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = () => controller.abort();
      init.signal?.addEventListener('abort', onAbort, { once: true });

      let res: Response;
      try {
        res = await doFetch(url, {
          method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: controller.signal,
          credentials: 'same-origin',
        });
      } catch (err) {
        if (timedOut) throw new ApiError(0, 'deadline_exceeded', `${method} ${path} timed out after ${timeoutMs} ms`);
        if (init.signal?.aborted) throw new ApiError(0, 'canceled', `${method} ${path} was canceled`);
        throw new ApiError(0, 'unavailable', `${method} ${path} could not be reached: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onAbort);
      }

      const text = await res.text().catch(() => '');
      let body: unknown = undefined;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          if (res.ok) throw new ApiError(res.status, 'internal', `${method} ${path} answered with a body that is not JSON`);
        }
      }
      if (!res.ok) throw parseErrorBody(res.status, body);
      return body as T;
    },
  };
}
