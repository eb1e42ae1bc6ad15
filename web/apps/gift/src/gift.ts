/** The gift page's rules and route parsing (spec 001 §2, §5, §9), free of React. */
export const PRESETS = [370, 250, 125] as const;
export const CUSTOM_MIN = 25;
export const CUSTOM_MAX = 1000;
export const DEFAULT_CUSTOM = 25;
export const STORAGE_KEY = 'hangar.gift.form';

/** One certificate of the form: a preset amount or a custom one (as typed). */
export interface Certificate {
  kind: 'preset' | 'custom';
  value: string;
}

export const MSG_SELECT = 'Please select a gift certificate';
export const MSG_EMAIL = 'Please enter your email address';
export const MSG_WHOLE = 'Gift certificate amounts must be whole numbers.';
export const MSG_RANGE = 'A custom gift certificate amount must be between 25 and 1000.';
export const MSG_NAME = 'Name cannot be blank';
export const MSG_POSTAL = 'Postal Code cannot be blank';
export const MSG_COUNTRY = 'Please select a country';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** E-mails arrive from URLs with '+' decoded as a space (spec 001 §5). */
export function normalizeEmail(v: string): string {
  return v.trim().replace(/ /g, '+');
}

export function validEmail(v: string): boolean {
  return EMAIL.test(normalizeEmail(v));
}

/** A certificate for a route value: a preset, or a custom amount. */
export function certificateFor(value: string): Certificate {
  const n = Number(value);
  return (PRESETS as readonly number[]).includes(n) ? { kind: 'preset', value: String(n) } : { kind: 'custom', value: value.trim() };
}

/** The route /gift/{values}/{email} (the shell passes the rest of the path as '*'). */
export function parseRoute(rest: string | undefined, search: string): { certificates: Certificate[]; email: string; accountId: string; currency: string } {
  const q = new URLSearchParams(search);
  const [values = '', email = ''] = (rest ?? '').split('/');
  const list = values
    .split(',')
    .map((v) => decodeURIComponent(v).trim())
    .filter((v) => v !== '');
  return {
    certificates: list.length > 0 ? list.map(certificateFor) : [{ kind: 'preset', value: String(PRESETS[0]) }],
    email: normalizeEmail(decodeURIComponent(email) || q.get('email') || ''),
    accountId: q.get('accountId') ?? '',
    currency: (q.get('currency') ?? '').toUpperCase(),
  };
}

/**
 * What the custom-amount field keeps of a keystroke: digits and the decimal separators, the
 * point and the comma. Dropping a separator made '25.5' or '25,5' a $255 certificate; kept,
 * both are refused as not whole (spec 001 §5: custom amounts are whole units from 25 to 1000).
 */
export function customAmountInput(typed: string): string {
  return typed.replace(/[^\d.,]/g, '').slice(0, 7);
}

/** The amount messages of a certificate, as the server words them. */
export function amountError(c: Certificate): string | undefined {
  if (c.kind === 'preset') return undefined;
  const n = Number(c.value);
  if (c.value.trim() === '' || !Number.isFinite(n) || !Number.isInteger(n)) return MSG_WHOLE;
  if (n < CUSTOM_MIN || n > CUSTOM_MAX) return MSG_RANGE;
  return undefined;
}

export interface GiftForm {
  certificates: Certificate[];
  email: string;
  cardholderName: string;
  zipcode: string;
  country: string;
}

/** The gift form's messages before the card is tokenised (spec 001 §5). */
export function validateForm(f: GiftForm): string[] {
  const out: string[] = [];
  const add = (m: string) => !out.includes(m) && out.push(m);
  if (f.certificates.length === 0) add(MSG_SELECT);
  for (const c of f.certificates) {
    const e = amountError(c);
    if (e) add(e);
  }
  if (!validEmail(f.email)) add(MSG_EMAIL);
  if (f.cardholderName.trim() === '') add(MSG_NAME);
  if (f.zipcode.trim() === '') add(MSG_POSTAL);
  if (f.country.trim() === '') add(MSG_COUNTRY);
  return out;
}
