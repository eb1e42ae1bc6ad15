import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { catalogFixture } from '@hangar/api-client/testing';
import { ApiError } from '@hangar/api-client';
import { standaloneProps } from './standalone';
import { afterPurchase, clampQuantity, fetchError, taxLabel, typedQuantity, validatePayment } from './oneoff';
import { CartCreator, ONE_OFF_GROUP, createError } from './CartCreator';
import { QuantityStepper } from './QuantityStepper';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('oneoff rules', () => {
  it('clamps and filters quantities', () => {
    expect([clampQuantity('0'), clampQuantity(''), clampQuantity('10000'), clampQuantity('12')]).toEqual([1, 1, 9999, 12]);
    expect(typedQuantity('1a2b345')).toBe('1234');
  });
  it('labels tax and words fetch errors', () => {
    expect([taxLabel('US'), taxLabel('CA'), taxLabel('DE')]).toEqual(['Tax', 'Tax', 'VAT']);
    expect(fetchError('boom')).toBe('Error when fetching pre-configured cart: boom');
    expect(createError(new ApiError(403, 'permission_denied', 'Only staff can create carts.'))).toBe('Only staff can create carts. (403)');
    expect(createError(new ApiError(500, 'internal', 'request failed with status 500'))).toBe('failed to create cart (500)');
  });
  it('asks for the zipcode on the saved-card path', () => {
    expect(validatePayment({ email: 'a@b.co', cardholderName: '', zipcode: '', country: '' }, true)).toEqual(['Please enter your zipcode']);
    expect(validatePayment({ email: 'x', cardholderName: '', zipcode: '', country: '' }, false)).toEqual([
      'Please enter your email address',
      'Name cannot be blank',
      'Postal Code cannot be blank',
      'Please select a country',
    ]);
  });
  it('goes to the redirect address with its extension; a mobile deeplink first, the address 3 s later', () => {
    const go = vi.fn();
    afterPurchase({ redirectUrl: '/buy/success?invoiceId=1', extension: '&print=receipt' }, go);
    expect(go.mock.calls).toEqual([['/buy/success?invoiceId=1&print=receipt']]);
    const later = vi.fn();
    const go2 = vi.fn();
    afterPurchase({ redirectUrl: '/buy/success?invoiceId=2', mobileDeeplink: 'hangar://done' }, go2, later);
    expect(go2.mock.calls).toEqual([['hangar://done']]);
    expect(later.mock.calls[0]![1]).toBe(3000);
    later.mock.calls[0]![0]();
    expect(go2.mock.calls[1]).toEqual(['/buy/success?invoiceId=2']);
    // A guest's order made the account: the success page offers to set its password.
    const go3 = vi.fn();
    afterPurchase({ redirectUrl: '/buy/success?invoiceId=3' }, go3, later, { newAccount: true });
    expect(go3.mock.calls).toEqual([['/buy/success?invoiceId=3&newAccount=1']]);
  });
  it('reads routes standalone', () => {
    expect(standaloneProps('/product/cart/a%20b').params.cartId).toBe('a b');
    expect(standaloneProps('/product/cart-create').route).toBe('/product/cart-create');
  });
});

describe('quantity stepper', () => {
  it('commits typed digits after 1 s idle, buttons at once', () => {
    vi.useFakeTimers();
    const onCommit = vi.fn();
    render(<QuantityStepper label="Receiver" value={2} onCommit={onCommit} />);
    fireEvent.change(screen.getByLabelText('Quantity: Receiver'), { target: { value: '12x345' } });
    expect((screen.getByLabelText('Quantity: Receiver') as HTMLInputElement).value).toBe('1234');
    act(() => vi.advanceTimersByTime(999));
    expect(onCommit).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onCommit).toHaveBeenCalledWith(1234);
    fireEvent.click(screen.getByLabelText('More: Receiver'));
    expect(onCommit).toHaveBeenLastCalledWith(3);
  });
});

describe('cart builder currency', () => {
  /** The staff page's store: an employee, a catalogue with one one-off product, cart-create. */
  function builder() {
    const created: Array<Record<string, unknown>> = [];
    const catalog = {
      ...catalogFixture,
      plans: {
        ...catalogFixture.plans,
        [ONE_OFF_GROUP]: {
          title: 'One-off products',
          entries: [{ addOnCode: 'oneoff_dbcard_garmin_sd', title: 'Garmin Database Card (SD)', group: ONE_OFF_GROUP, planType: 'oneOff', order: 1, price: { USD: { amountInCents: 4900 }, EUR: { amountInCents: 4500 } } }],
        },
      },
    };
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/buy/api/me')) return json({ loggedIn: true, isEmployee: true, username: 'employee@b.co' });
      if (url.includes('/available/add-ons')) return json(catalog);
      if (url.includes('/buy/api/cart-create')) {
        const body = JSON.parse(String(init?.body ?? (input instanceof Request ? await input.text() : '{}')));
        created.push(body.requestJson);
        return json({ uuid: 'c1', requestJson: body.requestJson, cartUrl: '/product/cart/c1' });
      }
      return json({});
    });
    return created;
  }

  it('sends no currency unless staff choose one, then the one chosen (USD too)', async () => {
    const created = builder();
    render(<CartCreator origin="http://store.test" />);
    fireEvent.change(await screen.findByLabelText('Quantity of Garmin Database Card (SD)'), { target: { value: '2' } });
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('');
    fireEvent.click(screen.getByRole('button', { name: 'Create Cart' }));
    await waitFor(() => expect(created).toHaveLength(1));
    expect(created[0]).toMatchObject({ currency: '', selectedProducts: [{ code: 'oneoff_dbcard_garmin_sd', quantity: 2 }] });
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'USD' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Cart' }));
    await waitFor(() => expect(created).toHaveLength(2));
    expect(created[1]!.currency).toBe('USD');
  });
});

// Issue 45: a visitor on /product/cart-create saw a refusal without a heading and no way to log in.
describe('cart creator for a visitor', () => {
  it('has the page heading and the store login form', async () => {
    const logins: unknown[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/buy/api/me')) return new Response(JSON.stringify({ loggedIn: false }), { headers: { 'content-type': 'application/json' } });
      if (url.includes('/pricing/api/login')) {
        logins.push(JSON.parse(String(init?.body ?? (input instanceof Request ? await input.text() : '{}'))));
        return new Response(JSON.stringify({ status: 'ok' }), { headers: { 'content-type': 'application/json' } });
      }
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    });
    const reload = vi.fn();
    render(<CartCreator origin="http://store.test" reload={reload} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'CREATE A ONE-OFF CART' })).toBeTruthy();
    expect(await screen.findByText(/Only staff/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Email Address'), { target: { value: 'employee@b.co' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByRole('button', { name: 'LOGIN' }));
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(logins).toEqual([{ username: 'employee@b.co', password: 'secret' }]);
  });
});
