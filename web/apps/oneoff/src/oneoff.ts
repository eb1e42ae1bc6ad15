/** One-off page rules (spec 001 §5, §9), free of React. */
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 9999;
/** The stepper commits a typed quantity after this much idle time. */
export const QUANTITY_DEBOUNCE_MS = 1000;
/** A zipcode previews once it has this many characters. */
export const ZIP_PREVIEW_CHARS = 4;
export const FLAG = 'one-off-purchases';

export const MSG_EMAIL = 'Please enter your email address';
export const MSG_ZIPCODE = 'Please enter your zipcode';
export const MSG_NAME = 'Name cannot be blank';
export const MSG_POSTAL = 'Postal Code cannot be blank';
export const MSG_COUNTRY = 'Please select a country';
export const MSG_CODE_USED = 'Code already used.';

/** What the quantity input accepts: digits only, at most 4. */
export function typedQuantity(raw: string): string {
  return raw.replace(/\D/g, '').slice(0, 4);
}

/** The committed quantity: clamped to 1..9999, empty or zero is 1. */
export function clampQuantity(raw: string | number): number {
  const n = typeof raw === 'number' ? raw : parseInt(raw, 10);
  if (!Number.isFinite(n)) return MIN_QUANTITY;
  return Math.min(Math.max(Math.trunc(n), MIN_QUANTITY), MAX_QUANTITY);
}

/** The tax label: 'Tax' for US and CA, otherwise 'VAT'. */
export function taxLabel(country: string): string {
  return country === 'US' || country === 'CA' ? 'Tax' : 'VAT';
}

/** With a mobile deeplink the app opens first and the success page follows after 3 s. */
export const DEEPLINK_DELAY_MS = 3000;

/**
 * Where a paid order goes (spec 001 §4): the redirect address with its optional extension;
 * with a mobile deeplink, the deeplink first and the address after 3 s.
 */
export function afterPurchase(
  r: { redirectUrl?: string; extension?: string; mobileDeeplink?: string },
  go: (url: string) => void,
  later: (f: () => void, ms: number) => unknown = setTimeout,
  opts: { newAccount?: boolean } = {},
): void {
  let url = `${r.redirectUrl ?? ''}${r.extension ?? ''}`;
  // A guest's order made the account: the success page offers to set its password, as after
  // /buy's guest order (it only shows a link: nothing is granted by it).
  if (opts.newAccount) url += `${url.includes('?') ? '&' : '?'}newAccount=1`;
  if (r.mobileDeeplink) {
    go(r.mobileDeeplink);
    later(() => go(url), DEEPLINK_DELAY_MS);
    return;
  }
  go(url);
}

export function fetchError(message: string): string {
  return `Error when fetching pre-configured cart: ${message}`;
}

/** How the order is paid: a new card (hosted fields), the buyer's saved card, or, in sales
 * mode, the card reader (both of the latter pay with a stored method after the ZIP check). */
export type PayWith = 'card' | 'saved' | 'reader';

/** The card path's messages before tokenising (spec 001 §5). */
export function validatePayment(f: { email: string; cardholderName: string; zipcode: string; country: string }, savedCard: boolean): string[] {
  const out: string[] = [];
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(f.email.trim().replace(/ /g, '+'))) out.push(MSG_EMAIL);
  if (savedCard) {
    if (f.zipcode.trim() === '') out.push(MSG_ZIPCODE);
    return out;
  }
  if (f.cardholderName.trim() === '') out.push(MSG_NAME);
  if (f.zipcode.trim() === '') out.push(MSG_POSTAL);
  if (f.country.trim() === '') out.push(MSG_COUNTRY);
  return out;
}

/** The account's stored card, as payments shows it. */
export interface SavedCard {
  token?: string;
  last4?: string;
  type?: string;
}
