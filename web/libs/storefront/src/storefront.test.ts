import { beforeEach, describe, expect, it } from 'vitest';
import {
  BANNER_COOKIE,
  CURRENCY_COOKIE,
  EURO_COOKIE,
  SALES_MODE_KEY,
  closeCookieBanner,
  cookieAttributes,
  cookieDomain,
  decideCookieBanner,
  defaultCurrency,
  disableSalesMode,
  enableSalesMode,
  formatRemaining,
  readCookie,
  readSalesMode,
  syncKiosk,
  withKiosk,
  type CookieJar,
  type GeoAnswer,
} from './index';

/** A cookie jar that keeps name=value like a browser (attributes recorded, not enforced). */
class Jar implements CookieJar {
  values = new Map<string, string>();
  attributes = new Map<string, string>();
  get cookie() {
    return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  set cookie(s: string) {
    const [pair, ...attrs] = s.split(';');
    const i = pair!.indexOf('=');
    this.values.set(pair!.slice(0, i).trim(), pair!.slice(i + 1).trim());
    this.attributes.set(pair!.slice(0, i).trim(), attrs.join(';').trim());
  }
}

const host = { hostname: 'www.hangar.example' };
const answer = (isEU: boolean, code: string) => async (): Promise<GeoAnswer> => ({ location: { is_eu: isEU }, currency: { code } });
const failing = async (): Promise<GeoAnswer> => {
  throw new Error('offline');
};

describe('cookie banner', () => {
  it('looks up an EU visitor and shows the banner', async () => {
    const jar = new Jar();
    expect(await decideCookieBanner({ lookup: answer(true, 'EUR'), jar, host })).toBe(true);
    expect(readCookie(BANNER_COOKIE, jar)).toBe('1');
    expect(readCookie(EURO_COOKIE, jar)).toBe('1');
    expect(readCookie(CURRENCY_COOKIE, jar)).toBe('EUR');
  });

  it('does not show it to a US visitor', async () => {
    const jar = new Jar();
    expect(await decideCookieBanner({ lookup: answer(false, 'USD'), jar, host })).toBe(false);
    expect(readCookie(BANNER_COOKIE, jar)).toBe('0');
    expect(readCookie(CURRENCY_COOKIE, jar)).toBe('USD');
  });

  it('shows it when the lookup fails, and asks again next time', async () => {
    const jar = new Jar();
    expect(await decideCookieBanner({ lookup: failing, jar, host })).toBe(true);
    expect(readCookie(BANNER_COOKIE, jar)).toBe('1');
    expect(readCookie(CURRENCY_COOKIE, jar)).toBeUndefined();
    let asked = false;
    await decideCookieBanner({ lookup: async () => ((asked = true), { location: { is_eu: false } }), jar, host });
    expect(asked).toBe(true);
  });

  it('does not ask when all three cookies exist, and Close keeps it closed', async () => {
    const jar = new Jar();
    await decideCookieBanner({ lookup: answer(true, 'EUR'), jar, host });
    closeCookieBanner(jar, host);
    expect(readCookie(BANNER_COOKIE, jar)).toBe('0');
    let asked = false;
    expect(await decideCookieBanner({ lookup: async () => ((asked = true), { location: { is_eu: true } }), jar, host })).toBe(false);
    expect(asked).toBe(false);
  });

  it('keeps a closed banner closed when another cookie is missing', async () => {
    const jar = new Jar();
    jar.cookie = `${BANNER_COOKIE}=0`;
    expect(await decideCookieBanner({ lookup: answer(true, 'EUR'), jar, host })).toBe(false);
    expect(readCookie(CURRENCY_COOKIE, jar)).toBe('EUR');
  });

  it('writes 30-day cookies on path / shared across subdomains, secure except on localhost', () => {
    expect(cookieAttributes(host)).toBe('Path=/; Max-Age=2592000; SameSite=Lax; Domain=hangar.example; Secure');
    expect(cookieAttributes({ hostname: 'localhost' })).toBe('Path=/; Max-Age=2592000; SameSite=Lax');
    expect(cookieAttributes({ hostname: '127.0.0.1' })).toBe('Path=/; Max-Age=2592000; SameSite=Lax');
    expect(cookieDomain('hangar.example')).toBe('hangar.example');
    expect(cookieDomain('shop.example.co.uk')).toBe('example.co.uk');
    expect(cookieDomain('10.0.0.7')).toBeUndefined();
  });
});

describe('default currency', () => {
  it('prefers the stored one, then the cookie, then the lookup, then USD', async () => {
    const jar = new Jar();
    expect(await defaultCurrency('gbp', { jar, lookup: answer(true, 'EUR') })).toBe('GBP');
    expect(await defaultCurrency(null, { jar, lookup: answer(false, 'CAD') })).toBe('CAD');
    jar.cookie = `${CURRENCY_COOKIE}=AUD`;
    expect(await defaultCurrency(undefined, { jar, lookup: answer(true, 'EUR') })).toBe('AUD');
    expect(await defaultCurrency(undefined, { jar: new Jar(), lookup: failing })).toBe('USD');
  });
});

describe('sales mode', () => {
  beforeEach(() => localStorage.clear());
  const t0 = Date.UTC(2026, 10, 23, 8, 0, 0);

  it('lasts 24 hours from Enable and is gone after its end time', () => {
    const s = enableSalesMode('RDR-0001', t0);
    expect(s.endTime - t0).toBe(86_400_000);
    expect(readSalesMode(t0 + 1000)).toEqual(s);
    expect(readSalesMode(t0 + 86_400_000)).toBeNull();
    expect(localStorage.getItem(SALES_MODE_KEY)).toBeNull();
  });

  it('needs a reader and is disabled by hand', () => {
    expect(() => enableSalesMode('', t0)).toThrow();
    enableSalesMode('RDR-0002', t0);
    disableSalesMode();
    expect(readSalesMode(t0)).toBeNull();
  });

  it('forgets a malformed entry', () => {
    localStorage.setItem(SALES_MODE_KEY, '{"value":{}}');
    expect(readSalesMode(t0)).toBeNull();
    expect(localStorage.getItem(SALES_MODE_KEY)).toBeNull();
  });

  it('shows the remaining time as a clock', () => {
    expect(formatRemaining(86_400_000)).toBe('24:00:00');
    expect(formatRemaining(3_661_999)).toBe('01:01:01');
    expect(formatRemaining(-5)).toBe('00:00:00');
  });
});

describe('kiosk mode', () => {
  beforeEach(() => sessionStorage.clear());

  it('turns on with kiosk=true and stays on for the tab', () => {
    expect(syncKiosk('?a=1')).toBe(false);
    expect(syncKiosk('?kiosk=true')).toBe(true);
    expect(syncKiosk('')).toBe(true);
  });

  it('appends kiosk=true to the store links only', () => {
    const origin = 'https://www.hangar.example';
    expect(withKiosk('/buy?addOns=pro#x', origin)).toBe('/buy?addOns=pro&kiosk=true#x');
    expect(withKiosk('/gift?kiosk=true', origin)).toBe('/gift?kiosk=true');
    expect(withKiosk('https://elsewhere.example/', origin)).toBe('https://elsewhere.example/');
    expect(withKiosk('mailto:a@b.example', origin)).toBe('mailto:a@b.example');
  });
});
