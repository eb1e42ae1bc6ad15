import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, fireEvent, act } from '@testing-library/react';
import OneOffModule from './remote-module';
import { standaloneProps } from './standalone';
import { clampQuantity, fetchError, taxLabel, typedQuantity, validatePayment } from './oneoff';
import { createError } from './CartCreator';
import { QuantityStepper } from './QuantityStepper';
import { ApiError } from '@hangar/api-client';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A fake store: /config.json flags, the cart, the session and the preview. */
function stub(opts: { flag: boolean; cart?: number; loggedIn?: boolean }) {
  return vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL) => {
    const url = String(input);
    if (url.includes('/config.json')) return json({ remotes: {}, features: { 'one-off-purchases': opts.flag } });
    if (url.includes('/buy/api/cart/')) {
      return opts.cart === 404
        ? json({ code: 'not_found', message: 'There is no cart "x".' }, 404)
        : json({ uuid: 'c1', requestJson: { selectedProducts: [{ code: 'oneoff_adsb_receiver', quantity: 2 }], currency: 'USD', applyTax: true } });
    }
    if (url.includes('/buy/api/me')) return json({ loggedIn: !!opts.loggedIn, username: 'a@b.co', accountUuid: 'acc' });
    if (url.includes('/buy/api/oneoff/preview')) {
      return json({
        items: [{ code: 'oneoff_adsb_receiver', name: 'Portable ADS-B Receiver', priceInCents: 59999, quantity: 2 }],
        invoice: { totalInCents: 119998, taxInCents: 0, taxVatText: 'Tax', invoiceItems: [] },
        counter: 1,
      });
    }
    return json({});
  });
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

describe('oneoff page', () => {
  it('redirects to / when the flag is off', async () => {
    stub({ flag: false });
    const navigate = vi.fn();
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} navigate={navigate} />);
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/'));
  });
  it('shows the fetch error of an unknown cart', async () => {
    stub({ flag: true, cart: 404 });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'x' }} />);
    expect(await screen.findByText('Error when fetching pre-configured cart: There is no cart "x".')).toBeTruthy();
  });
  it('opens the login modal without a user, and shows the products', async () => {
    stub({ flag: true, loggedIn: false });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'COMPLETE YOUR ORDER' })).toBeTruthy();
    expect(await screen.findByRole('dialog', { name: 'Login Required' })).toBeTruthy();
    expect(await screen.findByText('Portable ADS-B Receiver')).toBeTruthy();
    expect(screen.getByTestId('oneoff-total').textContent).toContain('1,199.98');
  });
});
