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

  /** For logs, never for the page: what the transport said (method, path, the browser's error). */
  readonly detail: string;

  constructor(status: number, code: string, message: string, fieldErrors: readonly FieldError[] = [], detail = '') {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
    this.detail = detail;
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

/**
 * What a buyer reads when no answer came: pages show an error's message, so a transport
 * failure's message is plain words and the wire's wording ("POST /x could not be reached:
 * Failed to fetch") is kept in `detail` for logs (issue 45).
 */
export const MSG_UNREACHABLE = 'The store could not be reached. Check your connection and try again.';
export const MSG_TIMEOUT = 'The store did not answer in time. Please try again.';
export const MSG_CANCELED = 'The request was canceled.';
export const MSG_BAD_ANSWER = 'The store sent an answer this page could not read. Please try again.';

/** The ApiError of a call that got no answer. */
export function transportError(what: string, err: unknown, timedOut: boolean, canceled: boolean, timeoutMs: number): ApiError {
  if (timedOut) return new ApiError(0, 'deadline_exceeded', MSG_TIMEOUT, [], `${what} timed out after ${timeoutMs} ms`);
  if (canceled) return new ApiError(0, 'canceled', MSG_CANCELED, [], `${what} was canceled`);
  return new ApiError(0, 'unavailable', MSG_UNREACHABLE, [], `${what} could not be reached: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * The XSRF cookie to send again after a refusal: a page's concurrent first calls (its own GET
 * and a post's safe call) are each issued a cookie, so the one a post echoed can be replaced
 * before the post arrives (403 "XSRF token mismatch"). The edge refuses such a post before
 * any handler runs, so sending it once more with the cookie now held is safe. Undefined
 * unless the answer is a 403 and the cookie changed.
 */
export function xsrfRenewed(res: Response, sent: string | null | undefined, cookie: () => string): string | undefined {
  if (res.status !== 403) return undefined;
  const now = readCookie(cookie(), 'XSRF-TOKEN');
  return now && now !== (sent ?? '') ? now : undefined;
}

/** The path every page may GET to be issued the XSRF cookie (any API answer sets one). */
export const XSRF_PRIMER_PATH = '/buy/api/me';

/**
 * The XSRF token for a non-safe call. A page opened straight from a mail (set password,
 * forgot password) has made no API call yet, so has no XSRF cookie, and its first post was
 * refused (403 "Missing XSRF token") while the second, after that refusal set the cookie,
 * went through: with no cookie, one safe call first gets it.
 */
export async function xsrfToken(cookie: () => string, prime: () => Promise<unknown>): Promise<string | undefined> {
  const have = readCookie(cookie(), 'XSRF-TOKEN');
  if (have) return have;
  await prime().catch(() => undefined);
  return readCookie(cookie(), 'XSRF-TOKEN');
}

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
