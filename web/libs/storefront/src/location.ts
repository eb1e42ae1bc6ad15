import { parseCurrency, isCurrencyCode, type CurrencyCode } from '@hangar/money';
import { BANNER_COOKIE, CURRENCY_COOKIE, EURO_COOKIE, readCookie, writeCookie, type CookieHost, type CookieJar } from './cookies';

/** The location lookup (services/geo). */
export const GEO_PATH = '/freegeoip/api/json/';

/** The geo answer's fields the page reads (spec 001 §3). */
export interface GeoAnswer {
  location?: { is_eu?: boolean; country_code?: string };
  currency?: { code?: string };
}

export type Lookup = (signal?: AbortSignal) => Promise<GeoAnswer>;

export const lookupLocation: Lookup = async (signal) => {
  const res = await fetch(GEO_PATH, { signal, credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`location lookup: HTTP ${res.status}`);
  return (await res.json()) as GeoAnswer;
};

export interface LocationDeps {
  lookup?: Lookup;
  jar?: CookieJar;
  host?: CookieHost;
  signal?: AbortSignal;
}

/**
 * The cookie banner's decision on page load (spec 001 §4). With all three cookies present
 * nothing is asked. Otherwise the location is looked up and the missing cookies are set
 * from it: the banner flag (1 for EU visitors), the EU flag and the currency. Cookies that
 * exist are kept, so a visitor who closed the banner (flag 0) or chose a currency keeps
 * that choice. When the lookup fails the banner flag is set to show the banner, and the
 * other two stay missing so the next page load asks again. Answers whether to show it.
 */
export async function decideCookieBanner({ lookup = lookupLocation, jar = document, host = window.location, signal }: LocationDeps = {}): Promise<boolean> {
  const flag = readCookie(BANNER_COOKIE, jar);
  const euro = readCookie(EURO_COOKIE, jar);
  const currency = readCookie(CURRENCY_COOKIE, jar);
  if (flag !== undefined && euro !== undefined && currency !== undefined) return flag === '1';
  try {
    const geo = await lookup(signal);
    const isEU = geo.location?.is_eu === true;
    if (flag === undefined) writeCookie(BANNER_COOKIE, isEU ? '1' : '0', jar, host);
    if (euro === undefined) writeCookie(EURO_COOKIE, isEU ? '1' : '0', jar, host);
    if (currency === undefined) writeCookie(CURRENCY_COOKIE, parseCurrency(geo.currency?.code), jar, host);
  } catch (err) {
    if (signal?.aborted) throw err;
    if (flag === undefined) writeCookie(BANNER_COOKIE, '1', jar, host);
  }
  return readCookie(BANNER_COOKIE, jar) === '1';
}

/** Close: hides the banner for good (the flag becomes 0). */
export function closeCookieBanner(jar: CookieJar = document, host: CookieHost = window.location): void {
  writeCookie(BANNER_COOKIE, '0', jar, host);
}

/**
 * The default currency (spec 001 §4): one already stored by the page wins; then the
 * currency cookie; then the location lookup; USD when that fails. Military carts do not
 * ask: their currency is fixed (MILITARY_CURRENCY).
 */
export async function defaultCurrency(stored?: string | null, { lookup = lookupLocation, jar = document, signal }: LocationDeps = {}): Promise<CurrencyCode> {
  const s = (stored ?? '').toUpperCase();
  if (isCurrencyCode(s)) return s;
  const cookie = (readCookie(CURRENCY_COOKIE, jar) ?? '').toUpperCase();
  if (isCurrencyCode(cookie)) return cookie;
  try {
    return parseCurrency((await lookup(signal)).currency?.code);
  } catch {
    return 'USD';
  }
}

/**
 * The billing country a currency suggests (spec 000 §9: US, CA, GB, AU; none for EUR, which
 * many countries pay in). The currency is the visitor's location's until chosen, so this is
 * the location's country for those four. /buy and /gift follow it until the buyer picks one.
 */
export function suggestedCountry(currency: CurrencyCode): string {
  return ({ USD: 'US', CAD: 'CA', GBP: 'GB', AUD: 'AU' } as Partial<Record<CurrencyCode, string>>)[currency] ?? '';
}

/** Military carts are priced in one currency whatever the visitor's location. */
export const MILITARY_CURRENCY: CurrencyCode = 'USD';
