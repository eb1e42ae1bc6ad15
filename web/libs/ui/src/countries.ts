import type { SelectOption } from './fields';

/** Billing countries offered first by the purchase forms (ISO codes); the rest of the world
 * follows, named by the browser (Intl.DisplayNames), so the list needs no data file. */
const FIRST = ['US', 'CA', 'GB', 'DE', 'FR', 'AU', 'NZ', 'IE', 'NL', 'CH', 'AT', 'BE', 'ES', 'IT', 'SE', 'NO', 'DK', 'FI', 'PL', 'PT'];
const MORE = ['AR', 'BR', 'CL', 'CN', 'CZ', 'GR', 'HK', 'HU', 'IL', 'IN', 'IS', 'JP', 'KR', 'LU', 'MX', 'MY', 'PH', 'RO', 'SG', 'SI', 'SK', 'TH', 'TR', 'UA', 'ZA'];

function nameOf(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

export function countryOptions(): SelectOption[] {
  return [{ value: '', label: 'Select a country' }, ...[...FIRST, ...MORE.sort()].map((c) => ({ value: c, label: nameOf(c) }))];
}
