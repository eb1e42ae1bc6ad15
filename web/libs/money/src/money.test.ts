import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatMoney,
  formatPrice,
  parseCurrency,
  perSeat,
  resolveCurrency,
  showsVatNote,
  CURRENCY_SYMBOLS,
  DEFAULT_REGION,
} from './index';

describe('formatAmount', () => {
  it.each([
    ['a receipt total is grouped', 1229600, 'USD', '$12,296.00'],
    ['whole amounts keep their cents', 47000, 'USD', '$470.00'],
    ['a balance paid is negative', -2500, 'USD', '-$25.00'],
    ['euro', 4278, 'EUR', '€42.78'],
    ['Canadian symbol', 123456789, 'CAD', 'CA$1,234,567.89'],
  ] as const)('%s', (_name, cents, currency, want) => {
    expect(formatAmount(cents, currency)).toBe(want);
  });
});

describe('formatMoney', () => {
  it.each([
    ['Essential in USD', 19999, 'USD', '$199.99'],
    ['Starter, a whole amount, without decimals', 12500, 'USD', '$125'],
    ['Premium in CAD', 49900, 'CAD', 'CA$499'],
    ['Essential in EUR', 18599, 'EUR', '€185.99'],
    ['pound sign', 10000, 'GBP', '£100'],
    ['AUD', 18850, 'AUD', 'AU$188.50'],
    ['single-digit cents keep two decimals', 7405, 'USD', '$74.05'],
    ['thousands are grouped', 317560, 'USD', '$3,175.60'],
    ['zero', 0, 'USD', '$0'],
    ['credit is negative', -2500, 'EUR', '-€25'],
  ] as const)('%s', (_name, cents, currency, want) => {
    expect(formatMoney(cents, currency)).toBe(want);
  });

  it('rejects NaN rather than printing it', () => {
    expect(() => formatMoney(Number.NaN, 'USD')).toThrow(RangeError);
  });
});

describe('formatPrice', () => {
  it('appends /yr for a yearly price', () => {
    expect(formatPrice(19999, 'USD', 'year')).toBe('$199.99/yr');
  });
  it('says 3 months for the three-month plan', () => {
    expect(formatPrice(4999, 'USD', 'three-months')).toBe('$49.99 3 months');
  });
  it('has no suffix for one-off prices', () => {
    expect(formatPrice(2500, 'GBP', 'once')).toBe('£25');
  });
});

describe('parseCurrency', () => {
  it.each([
    ['EUR', 'EUR'],
    ['eur', 'EUR'],
    [' gbp ', 'GBP'],
    ['XYZ', 'USD'],
    ['', 'USD'],
    [null, 'USD'],
    [undefined, 'USD'],
    ['<script>', 'USD'],
  ])('%j -> %s', (input, want) => {
    expect(parseCurrency(input)).toBe(want);
  });
});

describe('resolveCurrency', () => {
  it('keeps a supported request', () => {
    expect(resolveCurrency('CAD', ['USD', 'CAD'])).toBe('CAD');
  });
  it('falls back to USD when the server does not offer the request', () => {
    expect(resolveCurrency('AUD', ['USD', 'EUR'])).toBe('USD');
  });
  it('falls back to the first offered when USD is not offered', () => {
    expect(resolveCurrency('AUD', ['EUR', 'GBP'])).toBe('EUR');
  });
  it('trusts the request when the server list is empty', () => {
    expect(resolveCurrency('GBP', [])).toBe('GBP');
  });
});

describe('constants', () => {
  it('has the spec symbols', () => {
    expect(CURRENCY_SYMBOLS).toEqual({ USD: '$', CAD: 'CA$', EUR: '€', GBP: '£', AUD: 'AU$' });
  });
  it('has the spec default regions', () => {
    expect(DEFAULT_REGION.AUD).toBe('included_geo_us');
    expect(DEFAULT_REGION.GBP).toBe('included_geo_eu');
  });
  it('shows the VAT note only for GBP and EUR', () => {
    expect(['USD', 'CAD', 'EUR', 'GBP', 'AUD'].filter((c) => showsVatNote(c as never))).toEqual(['EUR', 'GBP']);
  });
});

describe('perSeat', () => {
  it('divides by the quantity', () => {
    expect(perSeat(50000, 2)).toBe(25000);
  });
  it('treats a bad quantity as one', () => {
    expect(perSeat(50000, 0)).toBe(50000);
    expect(perSeat(50000, Number.NaN)).toBe(50000);
  });
});
