import { parseCurrency, type CurrencyCode } from '@hangar/money';

/**
 * What the buy page reads from its address (spec 000 §2, spec 001 §2): the path
 * (/buy, /buy/{addOns}, /buy/{addOns}/{quantity}, /buy/military/, /buy/military_intl/),
 * the in-page hash routes (#/account/{accountId}?..., #/hjopa_bundle?...) and the query.
 * A hash route's own query string counts as well, and wins over the page's.
 */
export interface BuyQuery {
  /** Unknown or missing falls back to USD. */
  currency: CurrencyCode;
  /** The raw value, to tell "asked for" from "fell back". */
  requestedCurrency: string | null;
  /** Preselected add-on codes (route or query, comma list). */
  addOns: string[];
  /** Sections to expand; the first is scrolled into view once. */
  sections: string[];
  email: string | null;
  accountId: string | null;
  subscriptionId: string | null;
  quantity: string | null;
  /** Gift or promo code. */
  code: string | null;
  /** jepp: a flag ('true') or a chart-provider customer number. */
  jepp: string | null;
  zipcode: string | null;
  upgrade: string | null;
  extras: string[];
  /** gdpr=show forces the EU data-consent checkbox. */
  gdprShow: boolean;
  enableDime: boolean;
  deeplinkOnSuccess: string | null;
  kiosk: boolean;
  /** prompt=login opens the login modal ('Login Required'). */
  promptLogin: boolean;
  /** A failed redirect login comes back with loginFailed=1 ('Authentication failed'). */
  loginFailed: boolean;
  military: boolean;
  militaryInternational: boolean;
  hjopaBundle: boolean;
}

const CODE = /^[a-z0-9_]{1,64}$/i;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function list(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => CODE.test(s));
}

/** Spaces in an e-mail become plus signs (a '+' arrives as a space in a query). */
export function cleanEmail(value: string | null | undefined): string | null {
  const e = value?.trim().replace(/ /g, '+');
  return e ? e : null;
}

/** The account id is extracted from a UUID-shaped value. */
export function extractAccountId(value: string | null | undefined): string | null {
  return value?.match(UUID)?.[0]?.toLowerCase() ?? null;
}

export interface BuyLocation {
  pathname: string;
  search: string;
  hash: string;
}

export function parseBuyLocation(loc: BuyLocation): BuyQuery {
  const q = new URLSearchParams(loc.search);
  // #/account/{id}?a=b or #/hjopa_bundle?a=b
  const hash = loc.hash.replace(/^#/, '');
  const [hashPath = '', hashQuery = ''] = hash.split('?');
  for (const [k, v] of new URLSearchParams(hashQuery)) q.set(k, v);
  const hashAccount = hashPath.match(/^\/account\/([^/?]+)/)?.[1];

  // /buy/{addOns} and /buy/{addOns}/{quantity}; /buy/military[_intl]/.
  const rest = loc.pathname.replace(/^\/buy\/?/, '').split('/').filter(Boolean);
  const military = rest[0] === 'military' || rest[0] === 'military_intl';
  const militaryInternational = rest[0] === 'military_intl';
  const special = ['success', 'sales-mode', 'military', 'military_intl', 'payments'];
  const routeAddOns = !military && rest[0] && !special.includes(rest[0]) ? list(decodeURIComponent(rest[0])) : [];
  const routeQuantity = !military && rest[1] && /^\d+$/.test(rest[1]) ? rest[1] : null;

  return {
    currency: parseCurrency(q.get('currency')),
    requestedCurrency: q.get('currency'),
    addOns: [...routeAddOns, ...list(q.get('addOns'))],
    sections: list(q.get('sections')),
    email: cleanEmail(q.get('email')),
    accountId: extractAccountId(hashAccount ?? q.get('accountId')),
    subscriptionId: extractAccountId(q.get('subscriptionId')),
    quantity: q.get('quantity') ?? routeQuantity,
    code: q.get('code')?.trim() || null,
    jepp: q.get('jepp')?.trim() || null,
    zipcode: q.get('zipcode')?.trim() || null,
    upgrade: q.get('upgrade') && CODE.test(q.get('upgrade')!) ? q.get('upgrade') : null,
    extras: list(q.get('extras')),
    gdprShow: q.get('gdpr') === 'show',
    enableDime: q.get('enableDime') === 'true' || q.get('enableDime') === '1',
    deeplinkOnSuccess: q.get('deeplinkOnSuccess')?.trim() || null,
    kiosk: q.get('kiosk') === 'true',
    promptLogin: q.get('prompt') === 'login',
    loginFailed: q.get('loginFailed') === '1' || q.get('login') === 'failed',
    military,
    militaryInternational,
    hjopaBundle: hashPath.startsWith('/hjopa_bundle'),
  };
}

/** Back-compatible: only a query string. */
export function parseBuyQuery(search: string): BuyQuery {
  return parseBuyLocation({ pathname: '/buy', search, hash: '' });
}

/** The same URL with another currency. */
export function withCurrency(href: string, currency: CurrencyCode): string {
  const url = new URL(href);
  url.searchParams.set('currency', currency);
  return url.pathname + url.search + url.hash;
}

