import { describe, expect, it } from 'vitest';
import { formatDate } from './dates';

describe('formatDate', () => {
  it.each([
    ['an ISO day, whatever the reader\'s zone', '2027-12-06', '12-06-2027'],
    ['an instant is its UTC day', '2026-12-07T23:30:00Z', '12-07-2026'],
    ['a date printed already is kept', '12-06-2027', '12-06-2027'],
    ['nothing is nothing', undefined, ''],
    ['unreadable text is shown as given', 'soon', 'soon'],
  ] as const)('%s', (_name, value, want) => {
    expect(formatDate(value)).toBe(want);
  });
});
