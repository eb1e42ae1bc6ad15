import { describe, expect, it } from 'vitest';
import { parseBuyQuery, withCurrency } from './query';
import { standaloneProps } from './standalone';

describe('parseBuyQuery', () => {
  it('reads currency, addOns and sections', () => {
    const q = parseBuyQuery('?currency=eur&addOns=pro_plus,%20add_geo_eu&sections=vfr,runway');
    expect(q).toMatchObject({ currency: 'EUR', addOns: ['pro_plus', 'add_geo_eu'], sections: ['vfr', 'runway'] });
  });
  it('falls back to USD for an unknown currency', () => {
    expect(parseBuyQuery('?currency=XYZ').currency).toBe('USD');
    expect(parseBuyQuery('?currency=XYZ').requestedCurrency).toBe('XYZ');
  });
  it('drops codes that are not codes', () => {
    expect(parseBuyQuery('?addOns=<script>,a b,ok_1').addOns).toEqual(['ok_1']);
  });
  it('turns spaces in the e-mail into plus signs', () => {
    expect(parseBuyQuery('?email=pilot+test@example.com').email).toBe('pilot+test@example.com');
  });
  it('reads kiosk=true only', () => {
    expect(parseBuyQuery('?kiosk=true').kiosk).toBe(true);
    expect(parseBuyQuery('?kiosk=1').kiosk).toBe(false);
  });
});

describe('withCurrency', () => {
  it('sets the currency and keeps the rest', () => {
    expect(withCurrency('http://x/buy?addOns=a&currency=USD#/account/1', 'GBP')).toBe('/buy?addOns=a&currency=GBP#/account/1');
  });
});

describe('standaloneProps', () => {
  it('maps paths to routes', () => {
    expect(standaloneProps('/').route).toBe('/buy');
    expect(standaloneProps('/buy/military_intl').route).toBe('/buy/military_intl');
    expect(standaloneProps('/buy/success').route).toBe('/buy/success');
  });
});
