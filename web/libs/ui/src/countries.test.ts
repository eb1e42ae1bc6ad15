import { describe, expect, it } from 'vitest';
import { countries, countryOptions } from './countries';

describe('countries', () => {
  it('offers every ISO country once, sorted by name, after the placeholder', () => {
    const opts = countryOptions();
    expect(opts[0]).toEqual({ value: '', label: 'Select a country' });
    const codes = opts.slice(1).map((o) => o.value);
    expect(codes).toHaveLength(249);
    expect(new Set(codes).size).toBe(249);
    expect(codes).toEqual(expect.arrayContaining(['US', 'DE', 'AU', 'CA', 'GB']));
    const names = countries().map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });
});
