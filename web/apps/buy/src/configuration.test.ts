import { describe, expect, it } from 'vitest';
import { effectiveEmail, effectiveZip, initialConfiguration, needsAdopt, reduce, toWire } from './configuration';
import { parseBuyQuery } from './query';

const start = () => initialConfiguration(parseBuyQuery('?currency=USD'));

describe('configuration (the page keeps no rules: it sends choices and adopts the answer)', () => {
  it('starts empty: checkout decides the default plan and region', () => {
    expect(start().addOns).toEqual([]);
  });
  it('a plan choice replaces the other plans, keeps the rest in selection order', () => {
    const s = reduce({ ...start(), addOns: ['pro_plus', 'included_geo_us', 'syn_vis'] }, { type: 'selectPlan', plan: 'performance', planCodes: ['pro_plus', 'performance'] });
    expect(s.addOns).toEqual(['performance', 'included_geo_us', 'syn_vis']);
  });
  it('adopts the normalised cart and clears one-shot inputs', () => {
    const s0 = { ...start(), addOns: ['performance', 'syn_vis'], upgrade: 'performance', chartChoice: { addOnCode: 'jepp_us', type: 'Both' as const, checked: true } };
    const p = { addOns: ['performance', 'included_geo_us'], codeErrors: [], errors: [], planErrors: [], selectionErrors: [], promoInfoRequirements: [] };
    expect(needsAdopt(s0, p)).toBe(true);
    const s1 = reduce(s0, { type: 'adopt', preview: p });
    expect(s1).toMatchObject({ addOns: ['performance', 'included_geo_us'], upgrade: '', chartChoice: undefined });
    expect(needsAdopt(s1, p)).toBe(false);
  });
  it('drops refused and removed codes once, then stays stable', () => {
    const s0 = { ...start(), addOns: ['performance'], discountPromoCode: ['NOPE', 'BUNDLE2020'] };
    const p = { addOns: ['performance'], codeErrors: [{ code: 'NOPE', message: 'Not a valid code.' }], promoInfoRequirements: [{ code: 'BUNDLE2020', removeCode: true }], errors: [], planErrors: [], selectionErrors: [] };
    const s1 = reduce(s0, { type: 'adopt', preview: p });
    expect(s1.discountPromoCode).toEqual([]);
    expect(needsAdopt(s1, p)).toBe(false);
  });
  it('a code is added once, case-insensitively', () => {
    const s = reduce(reduce(start(), { type: 'addCode', code: 'EAA2020', kind: 'promo' }), { type: 'addCode', code: 'eaa2020', kind: 'promo' });
    expect(s.discountPromoCode).toEqual(['EAA2020']);
  });
  it('sends the e-mail once it has an address shape (a half-typed one is not priced)', () => {
    for (const half of ['a', 'amelia@', 'amelia@example', 'amelia@example.']) expect(effectiveEmail(half)).toBe('');
    expect(effectiveEmail(' amelia@example.test ')).toBe('amelia@example.test');
    expect(toWire({ ...start(), email: 'amelia@exa' }, { cartId: 'c', counter: 1 }).email).toBe('');
  });
  it('sends the zip only from 4 characters, and the typed quantity as is', () => {
    expect(effectiveZip('972')).toBe('');
    expect(effectiveZip('97201')).toBe('97201');
    const w = toWire({ ...start(), quantity: 'abc', zipcode: '97' }, { cartId: 'c', counter: 3 });
    expect(w).toMatchObject({ quantity: 'abc', billingInfo: { zipcode: '' }, counter: 3, cartId: 'c' });
    expect(toWire({ ...start(), quantity: '5' }, { cartId: 'c', counter: 1 }).quantity).toBe(5);
  });

  // Issue 31: no default billing country; spec 000 §9 sets one per currency.
  it.each([
    ['USD', 'US'],
    ['CAD', 'CA'],
    ['GBP', 'GB'],
    ['AUD', 'AU'],
    ['EUR', ''],
  ])('a %s cart starts with the billing country %j', (currency, country) => {
    const c = initialConfiguration(parseBuyQuery(`?currency=${currency}`));
    expect(c.country).toBe(country);
    // Sent with a postal code; alone it is no address (a subscriber's billing contact stands).
    expect(toWire(c, { cartId: '', counter: 0 }).billingInfo).toMatchObject({ country: '' });
    expect(toWire({ ...c, zipcode: '12345' }, { cartId: '', counter: 0 }).billingInfo).toMatchObject({ country });
  });

  it('the default country follows a currency change until the buyer picks one', () => {
    const usd = initialConfiguration(parseBuyQuery(''));
    expect(reduce(usd, { type: 'set', patch: { currency: 'GBP' } }).country).toBe('GB');
    const picked = reduce(usd, { type: 'set', patch: { country: 'FR' } });
    expect(reduce(picked, { type: 'set', patch: { currency: 'GBP' } }).country).toBe('FR');
  });
});
