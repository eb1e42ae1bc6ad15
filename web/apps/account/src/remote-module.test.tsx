import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '@hangar/api-client';
import AccountModule from './remote-module';
import { standaloneProps } from './standalone';
import type { AccountApi } from './account';

afterEach(cleanup);

const RENEWAL = {
  subscriptionId: 'sub-1',
  autoRenew: true,
  state: 'scheduled',
  renewalDate: '2027-04-15',
  renewalAmountInCents: 44650,
  currency: 'USD',
  chargedBy: 'CREDIT_CARD',
  message: 'Your subscription renews on 04-15-2027.',
};

function fakeApi(over: Partial<AccountApi> = {}): AccountApi {
  return {
    me: vi.fn(async () => ({ loggedIn: true, accountUuid: 'acct-1', username: 'pilot@demo.hangar.test' })),
    renewal: vi.fn(async () => RENEWAL),
    subscription: vi.fn(async () => ({ subscription: { name: 'Premium', planCode: 'performance' }, paymentInfo: { type: 'Visa', last4: '1111', expirationDate: '12/2030' } })),
    invoices: vi.fn(async () => [
      { invoiceId: 'inv-2', invoiceNumber: 'H-000002', created: '2026-11-20', kind: 'subscription', renewal: true, currency: 'EUR', totalInCents: 19999, status: 'paid', canPrintInvoice: true },
      { invoiceId: 'inv-1', invoiceNumber: 'H-000001', created: '2026-01-02', kind: 'gift', renewal: false, currency: 'USD', totalInCents: 12500, status: 'paid', canPrintInvoice: false },
    ]),
    paymentMethod: vi.fn(async () => ({ status: 'ok', canUpdate: true, paymentMethod: { type: 'Visa', last4: '1111', expirationDate: '12/2030' } })),
    setAutoRenew: vi.fn(async () => ({ status: 'succeeded', autoRenew: false })),
    updatePaymentMethod: vi.fn(async () => ({ status: 'succeeded' })),
    login: vi.fn(async () => undefined),
    ...over,
  } as AccountApi;
}

function show(api: AccountApi, reload = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<AccountModule {...standaloneProps('/account')} api={api} reload={reload} client={client} />);
  return reload;
}

describe('account remote', () => {
  it('shows the server renewal date and price, and the invoice history with receipts and printable invoices', async () => {
    show(fakeApi());
    expect(await screen.findByTestId('renewal-date')).toHaveProperty('textContent', '04-15-2027');
    expect(screen.getByTestId('renewal-price').textContent).toBe('$446.50');
    expect(screen.getByTestId('plan-name').textContent).toBe('Premium');
    expect(screen.getByRole('switch', { name: 'Automatic renewal' }).getAttribute('aria-checked')).toBe('true');
    const rows = await screen.findAllByTestId('invoice-row');
    expect(rows).toHaveLength(2);
    // One date format on every page (spec 001 §9: MM-dd-yyyy), not the wire's ISO day.
    expect(within(rows[0]!).getByText('11-20-2026')).toBeTruthy();
    expect(within(rows[0]!).getByRole('link', { name: 'Receipt of invoice H-000002' }).getAttribute('href')).toBe('/buy/success?invoiceId=inv-2');
    expect(within(rows[0]!).getByRole('link', { name: 'Print invoice H-000002' }).getAttribute('href')).toBe('/buy/success?invoiceId=inv-2&print=invoice');
    expect(within(rows[0]!).getByText('Renewal')).toBeTruthy();
    expect(within(rows[0]!).getByText('€199.99')).toBeTruthy();
    // Printing is offered only where the server says so.
    expect(within(rows[1]!).queryByRole('link', { name: /Print invoice/ })).toBeNull();
  });

  // Issue 45: each card filled in on its own answer and pushed the cards below it down the
  // screen (/account's layout shift 0.1 on a phone). They are asked for at once and shown
  // together, so nothing on screen moves when the last one answers.
  it('shows the cards together once every answer is in, the payment method asked for at once', async () => {
    let answerInvoices!: (v: Awaited<ReturnType<AccountApi['invoices']>>) => void;
    let answerRenewal!: (v: typeof RENEWAL) => void;
    const api = fakeApi({
      renewal: vi.fn(() => new Promise((r) => (answerRenewal = r))) as AccountApi['renewal'],
      invoices: vi.fn(() => new Promise((r) => (answerInvoices = r))) as AccountApi['invoices'],
    });
    show(api);
    await waitFor(() => expect(api.invoices).toHaveBeenCalled());
    // The payment method does not wait for the renewal's answer.
    await waitFor(() => expect(api.paymentMethod).toHaveBeenCalled());
    answerRenewal(RENEWAL);
    await waitFor(() => expect(api.subscription).toHaveBeenCalled());
    // Everything but the invoices has answered: still one loading state, no card yet.
    expect(await screen.findByRole('status')).toHaveProperty('textContent', 'Loading your account…');
    expect(screen.queryByTestId('subscription')).toBeNull();
    expect(screen.queryByTestId('payment-method')).toBeNull();
    answerInvoices([]);
    expect(await screen.findByTestId('renewal-date')).toHaveProperty('textContent', '04-15-2027');
    expect(screen.getByTestId('payment-method-current').textContent).toContain('1111');
    expect(screen.getByTestId('invoices').textContent).toContain('No invoices yet.');
  });

  it('turns auto-renew off in one click: the form post with the plan, then succeeded', async () => {
    let answer!: (v: { status: string; autoRenew: boolean }) => void;
    const api = fakeApi({ setAutoRenew: vi.fn(() => new Promise((r) => (answer = r))) as AccountApi['setAutoRenew'] });
    show(api);
    const toggle = await screen.findByRole('switch', { name: 'Automatic renewal' });
    await waitFor(() => expect(api.subscription).toHaveBeenCalled());
    await screen.findByTestId('plan-name');
    fireEvent.click(toggle);
    expect(api.setAutoRenew).toHaveBeenCalledWith('performance', false);
    expect(screen.getByTestId('auto-renew').getAttribute('data-state')).toBe('submitting');
    expect(screen.getByTestId('auto-renew-state').textContent).toBe('Saving…');
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    answer({ status: 'succeeded', autoRenew: false });
    await waitFor(() => expect(screen.getByTestId('auto-renew').getAttribute('data-state')).toBe('succeeded'));
    expect(screen.getByTestId('auto-renew-state').textContent).toContain('We sent you a confirmation e-mail');
    expect(screen.getByRole('switch', { name: 'Automatic renewal' }).getAttribute('aria-checked')).toBe('false');
    expect(api.setAutoRenew).toHaveBeenCalledTimes(1);
  });

  it('shows the failed state with the server message', async () => {
    const api = fakeApi({ setAutoRenew: vi.fn(async () => Promise.reject(new ApiError(403, 'permission_denied', 'Subscriptions controlled by a third party cannot be changed.'))) });
    show(api);
    fireEvent.click(await screen.findByRole('switch', { name: 'Automatic renewal' }));
    expect((await screen.findByTestId('auto-renew-errors')).textContent).toBe('Subscriptions controlled by a third party cannot be changed.');
    expect(screen.getByTestId('auto-renew').getAttribute('data-state')).toBe('failed');
  });

  it('tells the quarterly check payer to contact sales instead of offering the card form', async () => {
    const msg = 'Your subscription is billed quarterly by check, so its payment method cannot be changed here. Please contact sales at sales@hangar.example.';
    show(fakeApi({ paymentMethod: vi.fn(async () => ({ status: 'ok', canUpdate: false, paymentMethodType: 'CHECK', billingPeriod: 'QUARTERLY', errors: [msg] })) }));
    expect((await screen.findByTestId('contact-sales')).textContent).toBe(msg);
    expect(screen.queryByRole('button', { name: 'Update payment method' })).toBeNull();
  });

  it('opens the payment form and refuses blank fields before asking the card frame', async () => {
    const api = fakeApi();
    show(api);
    fireEvent.click(await screen.findByRole('button', { name: 'Update payment method' }));
    expect(screen.getByTestId('hosted-fields')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save payment method' }));
    expect((await screen.findByTestId('payment-method-errors')).textContent).toContain('Cardholder name cannot be blank');
    expect(api.updatePaymentMethod).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('hosted-fields')).toBeNull();
  });

  it('without a session opens the login dialog; a failed login shows the message, a good one reloads', async () => {
    const login = vi.fn(async (u: string) => (u === 'pilot@demo.hangar.test' ? undefined : 'Invalid username or password'));
    const api = fakeApi({ me: vi.fn(async () => ({ loggedIn: false })), login });
    const reload = show(api);
    const dialog = await screen.findByTestId('login-modal');
    expect(within(dialog).getByRole('heading', { name: 'Login Required' })).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Email Address'), { target: { value: 'x@example.com' } });
    fireEvent.change(within(dialog).getByLabelText('Password'), { target: { value: 'nope' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'LOGIN' }));
    expect(await within(dialog).findByText('Invalid username or password')).toBeTruthy();
    expect(reload).not.toHaveBeenCalled();
    fireEvent.change(within(dialog).getByLabelText('Email Address'), { target: { value: 'pilot@demo.hangar.test' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'LOGIN' }));
    await waitFor(() => expect(reload).toHaveBeenCalled());
    expect(api.renewal).not.toHaveBeenCalled();
  });

  it('says so when there is no subscription (the server 404)', async () => {
    show(fakeApi({ renewal: vi.fn(async () => Promise.reject(new ApiError(404, 'not_found', 'You have no subscription yet.'))) }));
    expect(await screen.findByText('You have no subscription yet.')).toBeTruthy();
    expect(screen.queryByRole('switch')).toBeNull();
  });
});
