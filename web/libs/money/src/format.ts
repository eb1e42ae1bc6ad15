import { CURRENCY_SYMBOLS, type CurrencyCode } from './currency';

/** How a price recurs: per year, for the three-month plan, or once. */
export type Term = 'year' | 'three-months' | 'once';

const TERM_SUFFIX: Readonly<Record<Term, string>> = {
  year: '/yr',
  'three-months': ' 3 months',
  once: '',
};

function group(whole: number): string {
  return String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Minor units to display: cents / 100 with two decimals, whole amounts without
 * decimals. formatMoney(19999, 'USD') === '$199.99'; formatMoney(12500, 'USD') === '$125'.
 */
export function formatMoney(amountInCents: number, currency: CurrencyCode): string {
  if (!Number.isFinite(amountInCents)) throw new RangeError(`amount is not a number: ${amountInCents}`);
  const cents = Math.round(amountInCents);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const rest = abs % 100;
  const amount = rest === 0 ? group(whole) : `${group(whole)}.${String(rest).padStart(2, '0')}`;
  return `${sign}${CURRENCY_SYMBOLS[currency]}${amount}`;
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
