import { describe, expect, it, vi } from 'vitest';
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

  // Issue 31: building the list in the page (the DisplayNames constructor's locale data,
  // 2,000 localeCompare calls) blocked /buy's main thread for ~170 ms on a phone.
  it('builds the list without locale work in the page', async () => {
    vi.resetModules();
    const displayNames = vi.spyOn(Intl, 'DisplayNames');
    const compare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      const fresh = await import('./countries');
      expect(fresh.countries()).toHaveLength(249);
      expect(fresh.countries().find((c) => c.code === 'US')?.name).toBe('United States');
      expect(displayNames).not.toHaveBeenCalled();
      expect(compare).not.toHaveBeenCalled();
    } finally {
      displayNames.mockRestore();
      compare.mockRestore();
    }
  });
});
