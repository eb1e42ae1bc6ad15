import { describe, expect, it } from 'vitest';
import { MSG_COUNTRY, MSG_EMAIL, MSG_NAME, MSG_POSTAL, MSG_RANGE, MSG_SELECT, MSG_WHOLE, amountError, customAmountInput, parseRoute, validateForm } from './gift';

describe('gift route', () => {
  it('defaults to the first preset', () => {
    expect(parseRoute(undefined, '').certificates).toEqual([{ kind: 'preset', value: '370' }]);
  });
  it('reads values and the e-mail from the path', () => {
    const r = parseRoute('370,40/pilot a@b.co', '?accountId=acc&currency=eur');
    expect(r.certificates).toEqual([
      { kind: 'preset', value: '370' },
      { kind: 'custom', value: '40' },
    ]);
    expect(r.email).toBe('pilot+a@b.co');
    expect(r.accountId).toBe('acc');
    expect(r.currency).toBe('EUR');
  });
  it('reads the e-mail from the query', () => {
    expect(parseRoute('125', '?email=x@y.co').email).toBe('x@y.co');
  });
});

describe('gift form rules', () => {
  it.each([
    ['25', undefined],
    ['1000', undefined],
    ['24', MSG_RANGE],
    ['1001', MSG_RANGE],
    ['40.5', MSG_WHOLE],
    ['', MSG_WHOLE],
  ])('custom %s', (value, want) => {
    expect(amountError({ kind: 'custom', value })).toBe(want);
  });
  // Issue 45: '25,5' lost its comma and became a $255 certificate.
  it.each([
    ['25,5', MSG_WHOLE],
    ['25.5', MSG_WHOLE],
    ['1,000', MSG_WHOLE],
    ['$40', undefined],
  ])('typed %j is refused or kept as typed', (typed, want) => {
    const value = customAmountInput(typed);
    expect(Number(value) === 255).toBe(false);
    expect(amountError({ kind: 'custom', value })).toBe(want);
  });
  it('lists every message once', () => {
    expect(validateForm({ certificates: [], email: 'x', cardholderName: '', zipcode: ' ', country: '' })).toEqual([
      MSG_SELECT,
      MSG_EMAIL,
      MSG_NAME,
      MSG_POSTAL,
      MSG_COUNTRY,
    ]);
    expect(validateForm({ certificates: [{ kind: 'preset', value: '370' }], email: 'a@b.co', cardholderName: 'A B', zipcode: '94105', country: 'US' })).toEqual([]);
  });
});
