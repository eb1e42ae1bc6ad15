export { countries, type Country } from '@hangar/ui';

/** The 46 European country codes: business id (VAT id) and EU handling (spec 000 §9). */
export const EUROPEAN_COUNTRIES = 'AD AL AT BA BE BG BY CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SK SM UA VA XK'.split(' ');

/** Country 'eu' maps to Germany. */
export function normalizeCountry(code: string): string {
  const c = code.trim().toUpperCase();
  return c === 'EU' ? 'DE' : c;
}

export function takesBusinessId(country: string): boolean {
  return EUROPEAN_COUNTRIES.includes(normalizeCountry(country));
}
