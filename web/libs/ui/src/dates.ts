/** The store's one date format for people (spec 001 §9: MM-dd-yyyy), from Intl, in UTC. */
const DAY = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' });

/**
 * A date as every page, mail and PDF prints it: formatDate('2027-12-06') === '12-06-2027'.
 * A bare ISO day is that day wherever the reader is; an instant is its UTC day; a date
 * already printed MM-dd-yyyy is kept, and anything unreadable is shown as given.
 */
export function formatDate(value: string | Date | undefined | null): string {
  if (!value) return '';
  if (typeof value === 'string' && /^\d{2}-\d{2}-\d{4}$/.test(value)) return value;
  const d = typeof value === 'string' ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value) : value;
  if (Number.isNaN(d.getTime())) return typeof value === 'string' ? value : '';
  const p = Object.fromEntries(DAY.formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.month}-${p.day}-${p.year}`;
}
