import { describe, expect, it } from 'vitest';
import { parseBuyLocation, parseBuyQuery, withCurrency } from './query';
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

describe('parseBuyLocation (routes of spec 000 §2 and 001 §2)', () => {
  it('reads /buy/{addOns}/{quantity}', () => {
    const q = parseBuyLocation({ pathname: '/buy/business_pro,add_geo_eu/5', search: '', hash: '' });
    expect(q.addOns).toEqual(['business_pro', 'add_geo_eu']);
    expect(q.quantity).toBe('5');
  });
  it('reads #/account/{id} with its own query string', () => {
    const q = parseBuyLocation({ pathname: '/buy', search: '?code=X', hash: '#/account/00000000-0000-4000-8000-000000000001?email=a%20b@x.com&code=EAA2020' });
    expect(q.accountId).toBe('00000000-0000-4000-8000-000000000001');
    expect(q.email).toBe('a+b@x.com');
    expect(q.code).toBe('EAA2020');
  });
  it('reads #/hjopa_bundle, military paths and the flags', () => {
    expect(parseBuyLocation({ pathname: '/buy', search: '', hash: '#/hjopa_bundle' }).hjopaBundle).toBe(true);
    const m = parseBuyLocation({ pathname: '/buy/military_intl/', search: '?email=x@army.mil&prompt=login&gdpr=show', hash: '' });
    expect(m).toMatchObject({ military: true, militaryInternational: true, promptLogin: true, gdprShow: true, addOns: [] });
  });
  it('reads upgrade, extras, jepp, zipcode, deeplinkOnSuccess, enableDime', () => {
    const q = parseBuyQuery('?upgrade=performance&extras=syn_vis,logbook&jepp=12345&zipcode=97201&deeplinkOnSuccess=app://x&enableDime=true');
    expect(q).toMatchObject({ upgrade: 'performance', extras: ['syn_vis', 'logbook'], jepp: '12345', zipcode: '97201', deeplinkOnSuccess: 'app://x', enableDime: true });
  });
});
