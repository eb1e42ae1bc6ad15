import { CURRENCY_CODES, CURRENCY_SYMBOLS, type CurrencyCode } from './currency';

/** How a price recurs: per year, for the three-month plan, or once. */
export type Term = 'year' | 'three-months' | 'once';

const TERM_SUFFIX: Readonly<Record<Term, string>> = {
  year: '/yr',
  'three-months': ' 3 months',
  once: '',
};

/** Per currency, the formatters of whole amounts and of amounts with cents: Intl groups the digits and places the sign. */
const FORMATTERS: Readonly<Record<CurrencyCode, readonly [Intl.NumberFormat, Intl.NumberFormat]>> = Object.freeze(
  Object.fromEntries(
    CURRENCY_CODES.map((currency) => [
      currency,
      Object.freeze([0, 2].map((digits) => new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits })) as [Intl.NumberFormat, Intl.NumberFormat]),
    ]),
  ) as Record<CurrencyCode, readonly [Intl.NumberFormat, Intl.NumberFormat]>,
);

/**
 * Minor units to display: cents / 100 with two decimals, whole amounts without
 * decimals, in the store's symbol for the currency (CURRENCY_SYMBOLS: "CA$", "AU$").
 * formatMoney(19999, 'USD') === '$199.99'; formatMoney(12500, 'USD') === '$125'.
 */
export function formatMoney(amountInCents: number, currency: CurrencyCode): string {
  if (!Number.isFinite(amountInCents)) throw new RangeError(`amount is not a number: ${amountInCents}`);
  const cents = Math.round(amountInCents);
  const abs = Math.abs(cents);
  const rest = abs % 100;
  // The decimal string keeps the amount exact (no binary fraction of cents / 100).
  const decimal = `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(rest).padStart(2, '0')}`;
  const parts = FORMATTERS[currency][rest === 0 ? 0 : 1].formatToParts(decimal as unknown as number);
  return parts.map((p) => (p.type === 'currency' ? CURRENCY_SYMBOLS[currency] : p.value)).join('');
}

/**
 * Minor units as receipts and invoices print them: always two decimals, digits grouped, in
 * the store's symbol (formatAmount(1229600, 'USD') === '$12,296.00'), so a column of
 * amounts lines up.
 */
export function formatAmount(amountInCents: number, currency: CurrencyCode): string {
  if (!Number.isFinite(amountInCents)) throw new RangeError(`amount is not a number: ${amountInCents}`);
  const cents = Math.round(amountInCents);
  const abs = Math.abs(cents);
  const decimal = `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  const parts = FORMATTERS[currency][1].formatToParts(decimal as unknown as number);
  return parts.map((p) => (p.type === 'currency' ? CURRENCY_SYMBOLS[currency] : p.value)).join('');
}

/** formatPrice(19999, 'USD', 'year') === '$199.99/yr'. */
export function formatPrice(amountInCents: number, currency: CurrencyCode, term: Term = 'year'): string {
  return `${formatMoney(amountInCents, currency)}${TERM_SUFFIX[term]}`;
}

/** Per-seat price: the total divided by the quantity, rounded to the cent. */
export function perSeat(totalInCents: number, quantity: number): number {
  const q = Number.isFinite(quantity) && quantity >= 1 ? Math.floor(quantity) : 1;
  return Math.round(totalInCents / q);
}
