import { parseCurrency, type CurrencyCode } from '@hangar/money';

/** What the buy page reads from its query string (spec 000 §2). First cut: the parts the page uses. */
export interface BuyQuery {
  /** Unknown or missing falls back to USD. */
  currency: CurrencyCode;
  /** The raw value, to tell "asked for" from "fell back". */
  requestedCurrency: string | null;
  /** Preselected add-on codes (comma list). */
  addOns: string[];
  /** Sections to expand; the first is scrolled into view once. */
  sections: string[];
  email: string | null;
  kiosk: boolean;
}

const CODE = /^[a-z0-9_]{1,64}$/i;

function list(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => CODE.test(s));
}

export function parseBuyQuery(search: string): BuyQuery {
  const q = new URLSearchParams(search);
  return {
    currency: parseCurrency(q.get('currency')),
    requestedCurrency: q.get('currency'),
    addOns: list(q.get('addOns')),
    sections: list(q.get('sections')),
    // Spaces in an e-mail become plus signs (a '+' arrives as a space in a query).
    email: q.get('email')?.trim().replace(/ /g, '+') || null,
    kiosk: q.get('kiosk') === 'true',
  };
}

/** The same URL with another currency; the page reloads with it. */
export function withCurrency(href: string, currency: CurrencyCode): string {
  const url = new URL(href);
  url.searchParams.set('currency', currency);
  return url.pathname + url.search + url.hash;
}
