import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, fireEvent, act, within } from '@testing-library/react';
import OneOffModule from './remote-module';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { OneOffPage } from './OneOffPage';
import { enableSalesMode } from '@hangar/storefront';

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

/** The cart's login modal, once open (a <dialog> is shown by an effect). */
async function openModal() {
  const modal = await screen.findByTestId('oneoff-login');
  await waitFor(() => expect(within(modal).getByRole('heading', { name: 'Login Required' })).toBeTruthy());
  return modal;
}

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
    const modal = await openModal();
    expect(within(modal).getByRole('heading', { name: 'Login Required' })).toBeTruthy();
    expect(await screen.findByText('Portable ADS-B Receiver')).toBeTruthy();
    expect(screen.getByTestId('oneoff-total').textContent).toContain('1,199.98');
  });
  // Issue 45 (spec 001 §1: a visitor enters an e-mail and pays by card): the modal could not
  // be closed and Complete Order stayed disabled without a session.
  it('lets a visitor close the login modal and pay as a guest', async () => {
    stub({ flag: true, loggedIn: false });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    const modal = await openModal();
    expect(within(modal).getByRole('heading', { name: 'Login Required' })).toBeTruthy();
    expect(within(modal).getByRole('button', { name: 'LOGIN' })).toBeTruthy();
    fireEvent.click(within(modal).getByRole('button', { name: 'Continue as guest' }));
    await waitFor(() => expect(screen.queryByTestId('oneoff-login')).toBeNull());
    const email = screen.getByLabelText('Email Address') as HTMLInputElement;
    expect(email.disabled).toBe(false);
    await waitFor(() => expect(screen.getByRole('button', { name: /^Complete Order/ })).toHaveProperty('disabled', false));
  });
});

// Issue 31: the cart's login was a one-off copy (no form, so Enter did nothing, and
// 'Forgot password?' on a line of its own); it is now the store's LoginForm.
describe('oneoff login modal', () => {
  it('is the shared LoginForm: Enter submits, a refusal shows under the password, a success reloads the page', async () => {
    const fetchStub = stub({ flag: true, loggedIn: false });
    const logins: unknown[] = [];
    const base = fetchStub.getMockImplementation()!;
    fetchStub.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).includes('/pricing/api/login')) {
        logins.push(JSON.parse(String(init?.body)));
        return logins.length === 1 ? json({ code: 'unauthenticated', message: 'Invalid username or password.' }, 401) : json({ status: 'ok' });
      }
      return base(input, init);
    });
    const reload = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <OneOffPage cartId="c1" reload={reload} />
      </QueryClientProvider>,
    );
    const modal = await openModal();
    const form = modal.querySelector('form')!;
    expect(form).toBeTruthy();
    const forgot = within(modal).getByRole('link', { name: 'Forgot password?' });
    expect(forgot.parentElement).toBe(within(modal).getByRole('button', { name: 'LOGIN' }).parentElement);

    fireEvent.change(within(modal).getByLabelText('Email Address'), { target: { value: 'pilot@e2e.hangar.test' } });
    fireEvent.change(within(modal).getByLabelText('Password'), { target: { value: 'wrong' } });
    fireEvent.submit(form); // Enter in a field
    const password = within(modal).getByLabelText('Password');
    await waitFor(() => expect(password.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(password.getAttribute('aria-describedby')!)?.textContent).toBe('Invalid username or password.');
    expect(within(modal).getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', false);
    expect(reload).not.toHaveBeenCalled();

    fireEvent.change(within(modal).getByLabelText('Password'), { target: { value: 'right' } });
    fireEvent.click(within(modal).getByRole('button', { name: 'LOGIN' }));
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(logins).toEqual([
      { username: 'pilot@e2e.hangar.test', password: 'wrong' },
      { username: 'pilot@e2e.hangar.test', password: 'right' },
    ]);
    // The form stays disabled while the page reloads.
    expect(within(modal).getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', true);
  });
});

describe('oneoff default currency and sales mode', { timeout: 30_000 }, () => {
  afterEach(() => {
    localStorage.clear();
    document.cookie = 'ff_currency_choice=; Max-Age=0; path=/';
  });

  /** The store with a geo answer, a logged-in session and the card reader's vault. */
  function store(opts: {
    geo: string;
    me: Record<string, unknown>;
    cartCurrency?: string;
    euConsentRequired?: boolean;
    savedCard?: boolean;
    submit?: Record<string, unknown>;
    /** identity's marketingNotificationsEnabled for the session's account (unset: no answer). */
    marketing?: boolean;
    /** The preview's refused codes. */
    codeErrors?: Array<{ code: string; message: string }>;
  }) {
    const calls: Array<{ url: string; body: Record<string, unknown> }> = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const body = init?.body ? JSON.parse(String(init.body)) : {};
      calls.push({ url, body });
      if (url.includes('/config.json')) return json({ features: { 'one-off-purchases': true } });
      if (url.includes('/freegeoip/api/json/')) return json({ location: { is_eu: true }, currency: { code: opts.geo } });
      if (url.includes('/buy/api/cart/')) {
        return json({ uuid: 'c1', requestJson: { selectedProducts: [{ code: 'oneoff_adsb_receiver', quantity: 1 }], currency: opts.cartCurrency ?? 'USD', applyTax: true } });
      }
      if (url.includes('/buy/api/me')) return json(opts.me);
      if (url.includes('/buy/api/subscription/eu_consent/') && opts.marketing !== undefined) {
        return json({ status: 'ok', preference: { marketingNotificationsEnabled: opts.marketing } });
      }
      if (url.includes('/payment-method/')) return json(opts.savedCard ? { paymentMethod: { token: 'saved-token', last4: '4242', type: 'Visa' } } : {});
      if (url.includes('/buy/api/oneoff/preview')) {
        return json({
          items: [{ code: 'oneoff_adsb_receiver', name: 'Portable ADS-B Receiver', priceInCents: 59999 }],
          invoice: { totalInCents: 59999, invoiceItems: [] },
          counter: body.counter,
          euConsentRequired: opts.euConsentRequired ?? false,
          codeErrors: (opts.codeErrors ?? []).filter((e) => (body.discountPromoCode ?? []).includes(e.code)),
          errors: (opts.codeErrors ?? []).filter((e) => (body.discountPromoCode ?? []).includes(e.code)).map((e) => e.message),
        });
      }
      if (url.includes('/buy/api/oneoff/submit') && opts.submit) return json(opts.submit, opts.submit.status === 'fail' ? 400 : 200);
      if (url.includes('/buy/api/card-reader/vault-result')) return json({ paymentMethod: { token: 'reader-token' }, cardholderName: 'Amelia Earhart' });
      if (url.includes('/buy/api/card-reader/vault')) return json({ contextId: 'ctx-1' });
      if (url.includes('/buy/api/oneoff/submit')) return json({ status: 'ok', redirectUrl: '/buy/success?invoiceId=inv-1' });
      return json({});
    });
    return calls;
  }

  it('prices a cart without a staff currency in the storefront default (the location lookup) unless the buyer chose one', async () => {
    const calls = store({ geo: 'EUR', cartCurrency: '', me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await waitFor(() => expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('EUR'));
    await waitFor(() => expect(calls.filter((c) => c.url.includes('/oneoff/preview')).at(-1)?.body.currency).toBe('EUR'));
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'GBP' } });
    await waitFor(() => expect(calls.filter((c) => c.url.includes('/oneoff/preview')).at(-1)?.body.currency).toBe('GBP'));
  });

  // Issue 45: the one-off cart had no default country; it follows the cart's currency as on
  // /buy and /gift, and the preview is priced for it, until the buyer picks one.
  it('suggests the billing country of the currency until the buyer picks one', async () => {
    const calls = store({ geo: 'CAD', cartCurrency: '', me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await waitFor(() => expect((screen.getByLabelText('Country') as HTMLSelectElement).value).toBe('CA'));
    await waitFor(() => expect((calls.filter((c) => c.url.includes('/oneoff/preview')).at(-1)?.body.billingInfo as { country?: string })?.country).toBe('CA'));
    fireEvent.change(screen.getByLabelText('Country'), { target: { value: 'FR' } });
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'GBP' } });
    await waitFor(() => expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('GBP'));
    expect((screen.getByLabelText('Country') as HTMLSelectElement).value).toBe('FR');
  });

  it('prices in the staff\'s currency of the cart, USD too, over the location; the buyer\'s choice wins', async () => {
    const calls = store({ geo: 'EUR', cartCurrency: 'USD', me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await waitFor(() => expect(calls.some((c) => c.url.includes('/freegeoip/api/json/'))).toBe(true));
    await waitFor(() => expect(calls.filter((c) => c.url.includes('/oneoff/preview')).length).toBeGreaterThan(0));
    // The location answered EUR: the staff's USD stays.
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('USD');
    expect(calls.filter((c) => c.url.includes('/oneoff/preview')).every((c) => c.body.currency === 'USD')).toBe(true);
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'GBP' } });
    await waitFor(() => expect(calls.filter((c) => c.url.includes('/oneoff/preview')).at(-1)?.body.currency).toBe('GBP'));
  });

  it('shows the EU consent checkbox when the preview requires it and sends the consent', async () => {
    const calls = store({ geo: 'EUR', euConsentRequired: true, savedCard: true, me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    const navigate = vi.fn();
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} navigate={navigate} />);
    const consent = (await screen.findByRole('checkbox', { name: /I consent to the processing of my personal data/ })) as HTMLInputElement;
    expect(consent.checked).toBe(false);
    fireEvent.click(consent);
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '10115' } });
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/buy/success?invoiceId=inv-1'));
    const submit = calls.find((c) => c.url.includes('/oneoff/submit'))!.body as { configuration: Record<string, unknown> };
    expect(submit.configuration.isGdprCompliant).toBe(true);
  });

  it('shows the server\'s refusal without consent at the checkbox', async () => {
    const msg = 'Please give your consent to the processing of your data to continue.';
    store({ geo: 'EUR', euConsentRequired: true, savedCard: true, submit: { status: 'fail', errors: [msg], message: msg }, me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await screen.findByRole('checkbox', { name: /I consent/ });
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '10115' } });
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    await waitFor(() => expect(screen.getAllByText(msg).length).toBe(2));
  });

  // Issue 45: on a phone the order summary is below the button, which showed no amount.
  // Issue 45: a refused code said 'Not a valid code.' without naming itself and held up the
  // order; it is named by the code, can be removed alone, and is not sent with the order.
  it('names a refused promo code, removes it alone, and pays with the others', async () => {
    const calls = store({
      geo: 'USD',
      savedCard: true,
      codeErrors: [{ code: 'BOGUS', message: 'Not a valid code.' }],
      me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' },
    });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    for (const code of ['SPRING10', 'BOGUS']) {
      fireEvent.change(await screen.findByLabelText('Promo code'), { target: { value: code } });
      fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    }
    expect(await screen.findByText('Promo code BOGUS was not applied: Not a valid code.')).toBeTruthy();
    expect(screen.getByText('SPRING10 applied')).toBeTruthy();
    expect(screen.queryByTestId('oneoff-preview-errors')).toBeNull();
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '97201' } });
    await waitFor(() => expect(screen.getByRole('button', { name: /^Complete Order/ }).textContent).toContain('$'));
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    await waitFor(() => expect(calls.some((c) => c.url.includes('/oneoff/submit'))).toBe(true));
    const submit = calls.find((c) => c.url.includes('/oneoff/submit'))!.body as { configuration: { discountPromoCode: string[] } };
    expect(submit.configuration.discountPromoCode).toEqual(['SPRING10']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove promo code BOGUS' }));
    await waitFor(() => expect(screen.queryByText(/BOGUS/)).toBeNull());
    expect(screen.getByText('SPRING10 applied')).toBeTruthy();
  });

  it('shows the total on the Complete Order button, and the terms beside it', async () => {
    store({ geo: 'USD', me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await waitFor(() => expect(screen.getByRole('button', { name: /^Complete Order/ }).textContent).toBe('Complete Order · $599.99'), { timeout: 5000 });
    expect(screen.getByTestId('pay-terms').textContent).toContain('By pressing Complete Order you agree');
  });

  it('shows no EU consent checkbox when the preview does not require it', async () => {
    store({ geo: 'USD', euConsentRequired: false, me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    expect(await screen.findByText('Portable ADS-B Receiver')).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: /I consent/ })).toBeNull();
  });

  const MARKETING = /Send me news and offers about Hangar by e-mail/;
  const pilot = { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' };

  async function payWithSavedCard(navigate: ReturnType<typeof vi.fn>) {
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '97201' } });
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/buy/success?invoiceId=inv-1'));
  }

  it('offers the marketing checkbox, unticked, to a buyer without marketing consent and sends the tick with the order', async () => {
    const calls = store({ geo: 'USD', savedCard: true, marketing: false, me: pilot });
    const navigate = vi.fn();
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} navigate={navigate} />);
    const box = (await screen.findByRole('checkbox', { name: MARKETING })) as HTMLInputElement;
    expect(box.checked).toBe(false);
    // The preference asked for is the session's account.
    expect(calls.some((c) => c.url.endsWith('/buy/api/subscription/eu_consent/acc'))).toBe(true);
    fireEvent.click(box);
    await payWithSavedCard(navigate);
    const submit = calls.find((c) => c.url.includes('/oneoff/submit'))!.body;
    expect(submit.marketingConsent).toBe(true);
  });

  it('gives no marketing consent when the buyer leaves the box unticked', async () => {
    const calls = store({ geo: 'USD', savedCard: true, marketing: false, me: pilot });
    const navigate = vi.fn();
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} navigate={navigate} />);
    await screen.findByRole('checkbox', { name: MARKETING });
    await payWithSavedCard(navigate);
    expect(calls.find((c) => c.url.includes('/oneoff/submit'))!.body.marketingConsent).toBeUndefined();
  });

  it('does not offer the marketing checkbox to a buyer who has consented', async () => {
    const calls = store({ geo: 'USD', savedCard: true, marketing: true, me: pilot });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    expect(await screen.findByText('Portable ADS-B Receiver')).toBeTruthy();
    await waitFor(() => expect(calls.some((c) => c.url.includes('/eu_consent/'))).toBe(true));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(screen.queryByRole('checkbox', { name: MARKETING })).toBeNull();
  });

  it('does not ask staff in sales mode for the customer\'s marketing consent', async () => {
    enableSalesMode('RDR-0001');
    const calls = store({ geo: 'USD', marketing: false, me: { loggedIn: true, username: 'cardadmin@b.co', accountUuid: 'staff', isCreditCardAdmin: true } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    await screen.findByRole('radio', { name: 'Use the card reader (RDR-0001)' });
    expect(screen.queryByRole('checkbox', { name: MARKETING })).toBeNull();
    expect(calls.some((c) => c.url.includes('/eu_consent/'))).toBe(false);
  });

  it('in sales mode the credit-card admin takes the customer\'s card on the reader', async () => {
    enableSalesMode('RDR-0001');
    const calls = store({ geo: 'USD', me: { loggedIn: true, username: 'cardadmin@b.co', accountUuid: 'staff', isCreditCardAdmin: true } });
    const navigate = vi.fn();
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} navigate={navigate} />);
    const reader = await screen.findByRole('radio', { name: 'Use the card reader (RDR-0001)' });
    await waitFor(() => expect((reader as HTMLInputElement).checked).toBe(true));
    // No hosted card fields and no name: the reader reads the card and its holder.
    expect(screen.queryByLabelText('Cardholder name')).toBeNull();
    // The customer's e-mail, not the staff member's session.
    const email = screen.getByLabelText('Email Address') as HTMLInputElement;
    expect(email.disabled).toBe(false);
    expect(email.value).toBe('');
    fireEvent.change(email, { target: { value: 'customer@b.co' } });
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    expect(within(await screen.findByRole('alert')).getByText('Please enter your zipcode')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '97201' } });
    fireEvent.change(screen.getByLabelText('Country'), { target: { value: 'US' } });
    fireEvent.click(screen.getByRole('button', { name: /^Complete Order/ }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/buy/success?invoiceId=inv-1'), { timeout: 5000 });
    const vault = calls.find((c) => c.url.endsWith('/buy/api/card-reader/vault'));
    expect(vault?.body).toEqual({ email: 'customer@b.co', readerSerialNumber: 'RDR-0001' });
    const submit = calls.find((c) => c.url.includes('/oneoff/submit'))!.body as { configuration: Record<string, unknown>; useSavedCard: boolean; paymentMethodToken: string };
    expect(submit.useSavedCard).toBe(true);
    expect(submit.paymentMethodToken).toBe('reader-token');
    expect(submit.configuration).toMatchObject({ email: 'customer@b.co', readerSerialNumber: 'RDR-0001', cardholderName: 'Amelia Earhart' });
  });

  it('offers no card reader outside sales mode, nor to a buyer without the right', async () => {
    enableSalesMode('RDR-0001');
    store({ geo: 'USD', me: { loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc' } });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    expect(await screen.findByLabelText('Cardholder name')).toBeTruthy();
    expect(screen.queryByRole('radio', { name: /card reader/ })).toBeNull();
  });
});

describe('oneoff promo area', () => {
  it('refuses a code already in the cart, whatever its case', async () => {
    stub({ flag: true, loggedIn: true });
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c1' }} />);
    const field = await screen.findByLabelText('Promo code');
    fireEvent.change(field, { target: { value: 'spring10' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('spring10 applied')).toBeTruthy();
    fireEvent.change(field, { target: { value: 'SPRING10' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Code already used.')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: /^Remove promo code/ })).toHaveLength(1);
  });
});
