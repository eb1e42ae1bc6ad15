/**
 * Kiosk mode (spec 001 §2): `kiosk=true` in the query switches it on for this tab, and
 * while it is on, kiosk=true is appended to the store's links, so every page a shared
 * device opens stays in kiosk mode. It grants nothing: anyone can add the parameter.
 * Closing the tab ends it (session storage).
 */
export const KIOSK_KEY = 'hangar.kiosk';
export const KIOSK_PARAM = 'kiosk';

type Store = Pick<Storage, 'getItem' | 'setItem'>;

function store(): Store | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Reads the query: kiosk=true turns kiosk mode on. Answers whether it is on. */
export function syncKiosk(search: string, s: Store | undefined = store()): boolean {
  if (new URLSearchParams(search).get(KIOSK_PARAM) === 'true') s?.setItem(KIOSK_KEY, '1');
  return isKiosk(s);
}

export function isKiosk(s: Store | undefined = store()): boolean {
  return s?.getItem(KIOSK_KEY) === '1';
}

/**
 * href with kiosk=true appended, for the store's own links (same origin, not API or
 * special links); others are returned as they are.
 */
export function withKiosk(href: string, origin = typeof window === 'undefined' ? 'http://localhost' : window.location.origin): string {
  let u: URL;
  try {
    u = new URL(href, origin);
  } catch {
    return href;
  }
  if (u.origin !== origin || !/^https?:$/.test(u.protocol) || u.searchParams.get(KIOSK_PARAM) === 'true') return href;
  u.searchParams.set(KIOSK_PARAM, 'true');
  const relative = !/^[a-z][a-z0-9+.-]*:/i.test(href);
  return relative ? `${u.pathname}${u.search}${u.hash}` : u.toString();
}
