/**
 * A small JSON caller for the storefront pages of this library's users (sales mode,
 * eligibility): same origin, the XSRF pair on non-safe methods, the one error shape read
 * into StoreError. Forms and pages that need the generated API client use that instead.
 */
export class StoreError extends Error {
  readonly status: number;
  readonly fieldErrors: ReadonlyArray<{ field: string; message: string }>;
  constructor(status: number, message: string, fieldErrors: ReadonlyArray<{ field: string; message: string }> = []) {
    super(message);
    this.name = 'StoreError';
    this.status = status;
    this.fieldErrors = fieldErrors;
  }
}

function xsrfToken(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  const m = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]*)/);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

export async function storeRequest<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') {
    // The identity service sets XSRF-TOKEN on any answer; ask once when the page has none yet.
    if (!xsrfToken()) await fetch('/buy/api/me', { credentials: 'same-origin', signal }).catch(() => undefined);
    const t = xsrfToken();
    if (t) headers['X-XSRF-TOKEN'] = t;
    headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new StoreError(0, 'The store could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const b = (data ?? {}) as { message?: unknown; fieldErrors?: unknown };
    const fields = Array.isArray(b.fieldErrors) ? (b.fieldErrors as Array<{ field: string; message: string }>) : [];
    throw new StoreError(res.status, typeof b.message === 'string' && b.message ? b.message : `request failed with status ${res.status}`, fields);
  }
  return data as T;
}

/** The signed-in user as identity's /buy/api/me answers it (the fields these pages read). */
export interface CurrentUser {
  loggedIn?: boolean;
  accountUuid?: string;
  username?: string;
  email?: string;
  isCreditCardAdmin?: boolean;
}

export function currentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return storeRequest<CurrentUser>('GET', '/buy/api/me', undefined, signal);
}
