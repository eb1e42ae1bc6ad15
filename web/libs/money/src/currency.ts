/** The currencies the store sells in (spec 000 §9, 001 §9). */
export const CURRENCY_CODES = ['USD', 'CAD', 'EUR', 'GBP', 'AUD'] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];

/** USD is the default and the fallback for anything unknown. */
export const DEFAULT_CURRENCY: CurrencyCode = 'USD';

export const CURRENCY_SYMBOLS: Readonly<Record<CurrencyCode, string>> = {
  USD: '$',
  CAD: 'CA$',
  EUR: '€',
  GBP: '£',
  AUD: 'AU$',
};

/** Region included with a plan by default, per currency. */
export const DEFAULT_REGION: Readonly<Record<CurrencyCode, string>> = {
  USD: 'included_geo_us',
  AUD: 'included_geo_us',
  CAD: 'included_geo_ca',
  EUR: 'included_geo_eu',
  GBP: 'included_geo_eu',
};

/** Default billing country per currency; EUR has none. */
export const DEFAULT_COUNTRY: Readonly<Record<CurrencyCode, string | undefined>> = {
  USD: 'US',
  CAD: 'CA',
  EUR: undefined,
  GBP: 'GB',
  AUD: 'AU',
};

export const VAT_NOTE = 'Prices do not include VAT';

export function isCurrencyCode(value: unknown): value is CurrencyCode {
  return typeof value === 'string' && (CURRENCY_CODES as readonly string[]).includes(value);
}

/**
 * Parses a currency from user input (a URL query, a cookie). Case-insensitive;
 * anything missing or unknown falls back to USD.
 */
export function parseCurrency(value: string | null | undefined): CurrencyCode {
  const code = (value ?? '').trim().toUpperCase();
  return isCurrencyCode(code) ? code : DEFAULT_CURRENCY;
}

/**
 * Picks the currency to show: the requested one when the server supports it,
 * otherwise USD (or the first supported one when even USD is not offered).
 */
export function resolveCurrency(
  requested: string | null | undefined,
  supported: readonly string[],
): CurrencyCode {
  const wanted = parseCurrency(requested);
  const offered = supported.filter(isCurrencyCode);
  if (offered.length === 0 || offered.includes(wanted)) return wanted;
  if (offered.includes(DEFAULT_CURRENCY)) return DEFAULT_CURRENCY;
  return offered[0] ?? DEFAULT_CURRENCY;
}

/** 'Prices do not include VAT' is shown for GBP and EUR. */
export function showsVatNote(currency: CurrencyCode): boolean {
  return currency === 'GBP' || currency === 'EUR';
}
