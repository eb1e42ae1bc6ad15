import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createApiClient } from '@hangar/api-client';
import { catalogFixture } from '@hangar/api-client/testing';
import { BuyPage } from './BuyPage';
import { setApiClient } from './api';
import { LOGIN_REQUIRED } from './account';
import { disableSalesMode, enableSalesMode } from '@hangar/storefront';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

interface Sent {
  email?: string;
  readerSerialNumber?: string;
  currency: string;
  addOns: string[];
  counter: number;
  businessDowngrade?: boolean;
  discountPromoCode?: string[];
  giftCertificateCode?: string[];
  billingInfo?: { country?: string };
  quantity?: string;
}

/** A fake edge: the catalogue, an anonymous caller, and a preview that prices what it is sent. */
function fakeEdge(opts: { delay?: (body: Sent) => Promise<void>; me?: Record<string, unknown>; marketing?: boolean; previewRefused?: boolean; answer?: Record<string, unknown>; answerFor?: (body: Sent) => Record<string, unknown> | undefined; storedMethod?: boolean; submitted?: () => Response } = {}) {
  const previews: Sent[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    if (opts.storedMethod && url.pathname.startsWith('/buy/api/subscription/payment-method/')) {
      return json({ status: 'ok', paymentMethod: { token: 'stored-token', cardType: 'Visa', last4: '1111', expirationDate: '12/2030' } });
    }
    if (url.pathname === '/buy/api/invoice/submit' && opts.submitted) return opts.submitted();
    if (url.pathname === '/account/api/subscription/available/add-ons') return json(catalogFixture);
    if (url.pathname === '/buy/api/me') return json(opts.me ?? { loggedIn: false });
    if (url.pathname === '/pricing/api/login') return json({ status: 'ok', user: { account_uuid: '00000000-0000-4000-8000-0000000000aa' } });
    if (url.pathname.startsWith('/buy/api/subscription/eu_consent/') && opts.marketing !== undefined) {
      return json({ status: 'ok', preference: { marketingNotificationsEnabled: opts.marketing } });
    }
    if (url.pathname === '/buy/api/promo/validate') {
      const body = JSON.parse(String(init?.body)) as { code: string };
      return json({ status: 'ok', code: body.code.toUpperCase(), kind: /^gift-/i.test(body.code) ? 'gift' : 'promo' });
    }
    if (url.pathname === '/buy/api/invoice/preview') {
      const body = JSON.parse(String(init?.body)) as Sent;
      previews.push(body);
      await opts.delay?.(body);
      if (opts.previewRefused) {
        const msg = 'An account already exists for this e-mail address. Please log in to continue.';
        return json({ code: 'unauthenticated', message: msg, errors: [msg], requireLogin: true }, 401);
      }
      const answer = opts.answerFor?.(body) ?? opts.answer;
      const addOns = (answer?.addOns as string[] | undefined) ?? (body.addOns.length ? body.addOns : ['pro_plus', 'included_geo_us']);
      const plan = addOns[0]!;
      const price = plan === 'performance' ? 37000 : 19999;
      return json({
        ...answer,
        addOns,
        currency: body.currency,
        regionMode: 'checkbox',
        invoice: {
          currency: body.currency,
          counter: body.counter,
          totalInCents: price,
          subtotalInCents: price,
          taxInCents: 0,
          invoiceItems: [{ type: 'PLAN', addOnCode: plan, description: `${plan} — 1 year`, amountInCents: price, quantity: 1, key: `PLAN:${plan}` }],
        },
      });
    }
    return json({}, 404);
  });
  setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
  return { fetch, previews };
}

function renderPage(search = '', reload = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <BuyPage location={{ pathname: '/buy', search, hash: '' }} navigate={vi.fn()} reload={reload} />
    </QueryClientProvider>,
  );
}

// The first render loads the page's modules; a busy 2-core machine needs more than 1 s.
configure({ asyncUtilTimeout: 8000 });

afterEach(() => {
  cleanup();
  setApiClient(undefined);
});

describe('BuyPage: the server decides, the page shows', { timeout: 30_000 }, () => {
  it('opens the login modal when checkout refuses to price an account this session may not act on', async () => {
    fakeEdge({ previewRefused: true });
    renderPage('?accountId=00000000-0000-4000-8000-000000000001');
    await waitFor(() => expect(screen.getByRole('dialog').textContent).toContain(LOGIN_REQUIRED));
  });

  it('renders checkout\'s answer and asks again on every selection change', async () => {
    const edge = fakeEdge();
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    fireEvent.click(screen.getByRole('radio', { name: /Premium/ }));
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$370'));
    expect(edge.previews.at(-1)!.addOns[0]).toBe('performance');
  });

  it('drops an answer older than the one shown (by counter)', async () => {
    let releaseFirst!: () => void;
    const first = new Promise<void>((r) => (releaseFirst = r));
    fakeEdge({ delay: (b) => (b.addOns[0] === 'basic_plus' ? first : Promise.resolve()) });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    fireEvent.click(screen.getByRole('radio', { name: /^Starter\b(?! — 3)/ }));
    fireEvent.click(screen.getByRole('radio', { name: /Premium/ }));
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$370'));
    await act(async () => releaseFirst());
    expect(screen.getByTestId('invoice-total').textContent).toBe('$370');
  });

  it('a currency change keeps the choices', async () => {
    const edge = fakeEdge();
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    fireEvent.click(screen.getByRole('radio', { name: /Premium/ }));
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$370'));
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'EUR' } });
    await waitFor(() => expect(edge.previews.at(-1)!.currency).toBe('EUR'));
    expect(edge.previews.at(-1)!.addOns[0]).toBe('performance');
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('€370'));
  });

  const MARKETING = /Send me news and offers about Hangar by e-mail/;
  const pilot = { loggedIn: true, username: 'pilot@b.co', email: 'pilot@b.co', accountUuid: 'acc' };

  it('offers a visitor the marketing checkbox, unticked (a new customer has no consent yet)', async () => {
    fakeEdge();
    renderPage();
    const box = (await screen.findByRole('checkbox', { name: MARKETING })) as HTMLInputElement;
    expect(box.checked).toBe(false);
  });

  it('offers a signed-in buyer the marketing checkbox only when identity says they have not consented', async () => {
    const edge = fakeEdge({ me: pilot, marketing: false });
    renderPage();
    expect(await screen.findByRole('checkbox', { name: MARKETING })).toBeTruthy();
    expect(edge.fetch.mock.calls.some(([u]) => String(u) === 'http://edge/buy/api/subscription/eu_consent/acc')).toBe(true);
    cleanup();

    const consented = fakeEdge({ me: pilot, marketing: true });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    await waitFor(() => expect(consented.fetch.mock.calls.some(([u]) => String(u).includes('/eu_consent/acc'))).toBe(true));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(screen.queryByRole('checkbox', { name: MARKETING })).toBeNull();
  });

  it('opens the Currency Not Allowed modal when the preview refuses the currency', async () => {
    fakeEdge({ answer: { errorCodes: ['CURRENCY_NOT_ALLOWED_FOR_ACCOUNT'], errors: ['Sorry, that currency is not allowed for your account.'] } });
    renderPage();
    const modal = await screen.findByTestId('currency-modal');
    expect(modal.textContent).toContain('Currency Not Allowed');
    expect(modal.textContent).toContain('Sorry, that currency is not allowed for your account.');
  });

  it('keeps the Currency Not Allowed modal shut for a military cart (the server fixes its currency)', async () => {
    fakeEdge({ answer: { isMilitary: true, errorCodes: ['CURRENCY_NOT_ALLOWED_FOR_ACCOUNT'] } });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    expect(screen.queryByTestId('currency-modal')).toBeNull();
  });

  it('shows the connection message when the catalogue fails', async () => {
    const fetch = vi.fn(async () => json({ code: 'unavailable', message: 'down' }, 503));
    setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
    renderPage();
    await waitFor(() => expect(screen.getByText('There was a problem connecting.')).toBeTruthy());
  });

  // Issue 31: the gift e-mail's redeem link (/buy?code=…) did nothing; ?code= was read and dropped.
  it('applies the code of ?code= as if typed: checked, listed and priced', async () => {
    const edge = fakeEdge();
    renderPage('?code=gift-usd-100');
    expect((await screen.findByTestId('applied-code')).textContent).toBe('GIFT-USD-100');
    await waitFor(() => expect(edge.previews.some((b) => b.giftCertificateCode?.includes('GIFT-USD-100'))).toBe(true));
    expect(edge.fetch.mock.calls.filter(([u]) => String(u).endsWith('/buy/api/promo/validate'))).toHaveLength(1);
  });

  // Issue 31: after logging in from ?prompt=login the 'Login Required' modal opened again
  // (the reload kept prompt=login in the address).
  it('a login from ?prompt=login reloads without prompt=login, on the account route', async () => {
    fakeEdge();
    window.history.replaceState(null, '', '/buy?currency=USD&prompt=login');
    const reload = vi.fn();
    renderPage('?currency=USD&prompt=login', reload);
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Email Address'), { target: { value: 'pilot@b.co' } });
    fireEvent.change(within(dialog).getByLabelText('Password'), { target: { value: 'a long passphrase' } });
    fireEvent.submit(within(dialog).getByLabelText('Password').closest('form')!);
    await waitFor(() => expect(reload).toHaveBeenCalled());
    expect(window.location.search).toBe('?currency=USD');
    expect(window.location.hash).toBe('#/account/00000000-0000-4000-8000-0000000000aa');
    window.history.replaceState(null, '', '/');
  });

  // Issue 31: the bundle showed 'Please select a HondaJet runway analysis' before any click.
  it('a choice the cart still lacks is an error only once the buyer has chosen something', async () => {
    const MSG = 'Please select a HondaJet runway analysis';
    fakeEdge({ answer: { selectionErrors: [MSG] } });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    expect(document.body.textContent).not.toContain(MSG);
    fireEvent.click(screen.getByRole('radio', { name: /Premium/ }));
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$370'));
    expect(document.body.textContent).toContain(MSG);
  });

  // Issue 31: in sales mode /buy locked the e-mail to the staff member's, so the order was theirs.
  it('in sales mode a credit-card admin types the customer\'s e-mail, and the cart carries the reader', async () => {
    enableSalesMode('RDR-0001');
    try {
      const edge = fakeEdge({ me: { loggedIn: true, username: 'cardadmin@b.co', email: 'cardadmin@b.co', accountUuid: 'staff', isCreditCardAdmin: true } });
      renderPage();
      expect((await screen.findByTestId('selling-as')).textContent).toContain('cardadmin@b.co');
      const field = within(screen.getByTestId('account')).getByLabelText('Email Address') as HTMLInputElement;
      expect(field.disabled).toBe(false);
      expect(field.value).toBe('');
      fireEvent.change(field, { target: { value: 'customer@b.co' } });
      await waitFor(() => expect(edge.previews.some((b) => b.email === 'customer@b.co' && b.readerSerialNumber === 'RDR-0001')).toBe(true));
    } finally {
      disableSalesMode();
    }
  });

  // Issue 43: one click was priced twice (/validate, then /submit). The page posts the
  // order once; submit's refusal carries the fresh preview the page acts on.
  it('a click posts /submit alone, and shows what its refusal says', async () => {
    const msg = 'Military Flight Bag plans are sold only to verified military customers. Please verify your eligibility at /buy/military first.';
    const edge = fakeEdge({
      me: pilot,
      storedMethod: true,
      answer: { quoteId: 'q_1_USD_0' },
      submitted: () => json({ code: 'invalid_argument', status: 'fail', message: msg, errors: [msg], preview: { errorCodes: ['MILITARY_ELIGIBILITY_REQUIRED'] } }, 400),
    });
    renderPage();
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    await screen.findByRole('radio', { name: /Use your card on file/ });
    fireEvent.click(screen.getAllByRole('button', { name: /^Pay \$/ })[0]!);
    expect(await screen.findByTestId('eligibility-link')).toBeTruthy();
    const posted = edge.fetch.mock.calls.map(([u]) => new URL(String(u)).pathname);
    expect(posted.filter((u) => u === '/buy/api/invoice/submit')).toHaveLength(1);
    expect(posted).not.toContain('/buy/api/invoice/validate');
  });

  // Issue 31: an owner downgraded a business with allocated users without a word about them.
  it.each([
    [true, 1],
    [false, 0],
  ])('switching a business to an individual plan warns about allocated users (allocated: %s)', async (allocated, notes) => {
    fakeEdge({ me: pilot, answer: { isRenewal: true, isBusiness: true, renewalAmountInCents: 25000, ...(allocated ? { regionsDisabled: true } : {}) } });
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Switch to an individual plan' }, { timeout: 10_000 }));
    await waitFor(() => expect(screen.queryByTestId('renewal-box')).toBeNull());
    expect(screen.queryAllByTestId('downgrade-allocations')).toHaveLength(notes);
  });

  // Issue 45, spec 000 §2 (section 4): the renewal box is hidden for a business downgrade, also
  // once checkout answered the individual cart (the one-shot switch is then adopted and off).
  it('keeps the renewal box hidden once the individual cart of a business downgrade is in', async () => {
    const individual = { isRenewal: true, isBusiness: false, renewalAmountInCents: 9999, addOns: ['basic_plus', 'included_geo_us'] };
    const edge = fakeEdge({
      me: pilot,
      answerFor: (b) => (b.businessDowngrade || b.addOns[0] === 'basic_plus' ? individual : { isRenewal: true, isBusiness: true, renewalAmountInCents: 25000 }),
    });
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Switch to an individual plan' }, { timeout: 10_000 }));
    // The switch is adopted (the one-shot flag is off again): the plans show the individual cart's.
    await waitFor(() => expect((screen.getByRole('radio', { name: /^Starter\b(?! — 3)/ }) as HTMLInputElement).checked).toBe(true), { timeout: 10_000 });
    expect(edge.previews.some((b) => b.businessDowngrade)).toBe(true);
    expect(screen.queryByTestId('renewal-box')).toBeNull();
  });
});
