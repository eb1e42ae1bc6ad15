/**
 * The storefront's cookies (spec 001 §9): 30 days, path /, shared across the product's
 * subdomains, Secure except on localhost. Readable by the page on purpose: they hold no
 * secret, only the banner flag, the EU flag and the currency choice.
 */
export const BANNER_COOKIE = 'show_eu_cookie_directive';
export const EURO_COOKIE = 'euro_redirect';
export const CURRENCY_COOKIE = 'ff_currency_choice';
export const LOCATION_COOKIES = [BANNER_COOKIE, EURO_COOKIE, CURRENCY_COOKIE] as const;
export const COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;

/** Where the page runs: what the cookie attributes depend on. */
export interface CookieHost {
  hostname: string;
}

/** The document's cookie jar, or a stand-in in tests. */
export interface CookieJar {
  cookie: string;
}

function isLocal(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\./.test(h);
}

function isIP(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.includes(':');
}

/**
 * The Domain attribute that shares a cookie across the product's subdomains: the host
 * without its first label (www.hangar.example and buy.hangar.example share
 * hangar.example). Two-label hosts are the product domain already; IP addresses, local and
 * single-label hosts get no Domain (a host-only cookie). Dropping only the first label is
 * never a public suffix for hosts of three labels or more (shop.example.co.uk → example.co.uk).
 */
export function cookieDomain(hostname: string): string | undefined {
  if (isLocal(hostname) || isIP(hostname)) return undefined;
  const labels = hostname.split('.');
  if (labels.length < 2) return undefined;
  return labels.length === 2 ? hostname : labels.slice(1).join('.');
}

/** The attributes of every storefront cookie on host. */
export function cookieAttributes(host: CookieHost): string {
  const parts = ['Path=/', `Max-Age=${COOKIE_MAX_AGE_S}`, 'SameSite=Lax'];
  const domain = cookieDomain(host.hostname);
  if (domain) parts.push(`Domain=${domain}`);
  if (!isLocal(host.hostname)) parts.push('Secure');
  return parts.join('; ');
}

export function readCookie(name: string, jar: CookieJar = document): string | undefined {
  for (const part of jar.cookie.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

export function writeCookie(name: string, value: string, jar: CookieJar = document, host: CookieHost = window.location): void {
  jar.cookie = `${name}=${encodeURIComponent(value)}; ${cookieAttributes(host)}`;
}
