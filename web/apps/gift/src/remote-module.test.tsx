import { describe, expect, it, vi, afterEach } from 'vitest';
import { render, screen, fireEvent, waitFor } from '@testing-library/react';
import { GiftPage } from './GiftPage';
import GiftModule from './remote-module';
import { standaloneProps } from './standalone';

afterEach(() => vi.restoreAllMocks());

describe('gift remote', () => {
  it('renders its heading, amounts and the add action', () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 200 }));
    render(<GiftModule {...standaloneProps('/gift/370,40')} />);
    expect(screen.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeTruthy();
    expect(screen.getAllByTestId('gift-certificate')).toHaveLength(2);
    fireEvent.click(screen.getByRole('button', { name: 'Add Another Certificate' }));
    expect(screen.getAllByTestId('gift-certificate')).toHaveLength(3);
    expect(screen.getByRole('link', { name: 'gift certificate terms' })).toBeTruthy();
  });

  // Issue 31: typing '25.5' dropped the point and made a $255 certificate.
  it('keeps the decimal point of a custom amount: 25.5 is refused as not whole, never 255', () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 200 }));
    render(<GiftModule {...standaloneProps('/gift/40')} />);
    const field = screen.getByRole('textbox', { name: /Custom amount/ }) as HTMLInputElement;
    fireEvent.change(field, { target: { value: '25.5' } });
    expect(field.value).toBe('25.5');
    expect(screen.getByTestId('gift-certificate').textContent).toContain('Gift certificate amounts must be whole numbers.');
    fireEvent.change(field, { target: { value: '$40' } });
    expect(field.value).toBe('40');
  });
});

describe('gift default currency', () => {
  function stub(geoCurrency: string) {
    const bodies: Array<{ currency?: string }> = [];
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.includes('/freegeoip/api/json/')) return new Response(JSON.stringify({ location: { is_eu: true }, currency: { code: geoCurrency } }), { status: 200 });
      if (url.includes('/buy/api/gift/validate')) bodies.push(JSON.parse(String(init?.body ?? '{}')));
      return new Response('{}', { status: 200 });
    });
    return { spy, bodies };
  }
  afterEach(() => {
    localStorage.clear();
    document.cookie = 'ff_currency_choice=; Max-Age=0; path=/';
  });

  it('is the storefront default (the location lookup) when the buyer chose none', async () => {
    const { bodies } = stub('EUR');
    render(<GiftModule {...standaloneProps('/gift')} />);
    await waitFor(() => expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('EUR'));
    await waitFor(() => expect(bodies.at(-1)?.currency).toBe('EUR'));
    // Not remembered as a choice: the next visit asks the storefront again.
    expect(JSON.parse(localStorage.getItem('hangar.gift.form') ?? '{}').currency).toBeUndefined();
  });

  it('the currency cookie wins over the lookup, and the buyer\'s choice over both', async () => {
    document.cookie = 'ff_currency_choice=GBP; path=/';
    const { spy } = stub('EUR');
    render(<GiftModule {...standaloneProps('/gift')} />);
    await waitFor(() => expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('GBP'));
    expect(spy.mock.calls.some(([u]) => String(u).includes('/freegeoip/'))).toBe(false);
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'CAD' } });
    await waitFor(() => expect(JSON.parse(localStorage.getItem('hangar.gift.form') ?? '{}').currency).toBe('CAD'));
  });

  // Issue 45: /gift had no default country; it follows the location's currency as on /buy.
  it('suggests the billing country of the location\'s currency until the buyer picks one', async () => {
    stub('CAD');
    render(<GiftModule {...standaloneProps('/gift')} />);
    await waitFor(() => expect((screen.getByLabelText('Country') as HTMLSelectElement).value).toBe('CA'));
    fireEvent.change(screen.getByLabelText('Country'), { target: { value: 'FR' } });
    fireEvent.change(screen.getByLabelText('Currency'), { target: { value: 'GBP' } });
    await waitFor(() => expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('GBP'));
    expect((screen.getByLabelText('Country') as HTMLSelectElement).value).toBe('FR');
  });

  it('a currency in the address is the buyer\'s choice: no lookup', async () => {
    const { spy, bodies } = stub('EUR');
    render(<GiftPage rest="" search="?currency=aud" />);
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('AUD');
    await waitFor(() => expect(bodies.at(-1)?.currency).toBe('AUD'));
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('AUD');
    expect(spy.mock.calls.some(([u]) => String(u).includes('/freegeoip/'))).toBe(false);
  });
});

describe('gift page and the signed-in buyer', () => {
  function session(me: Record<string, unknown>) {
    const calls: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      calls.push(`${init?.method ?? 'GET'} ${new URL(url, 'http://store').pathname}`);
      if (url.includes('/buy/api/me')) return new Response(JSON.stringify(me), { status: 200 });
      return new Response('{}', { status: 200 });
    });
    return calls;
  }
  afterEach(() => localStorage.clear());

  it('logs out a buyer whose e-mail differs from the page data', async () => {
    const calls = session({ loggedIn: true, username: 'someone@b.co', accountUuid: 'acc-1' });
    render(<GiftPage rest="125/pilot@b.co" search="" />);
    await waitFor(() => expect(calls).toContain('POST /pricing/api/logout'));
    expect((screen.getByLabelText('Email Address') as HTMLInputElement).value).toBe('pilot@b.co');
  });

  it('logs out a buyer whose account differs from the page data', async () => {
    const calls = session({ loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc-1' });
    render(<GiftPage rest="" search="?accountId=acc-2" />);
    await waitFor(() => expect(calls).toContain('POST /pricing/api/logout'));
  });

  it('keeps a matching buyer signed in and fills the e-mail from the session', async () => {
    const calls = session({ loggedIn: true, username: 'pilot@b.co', accountUuid: 'acc-1' });
    render(<GiftPage rest="125/pilot@b.co" search="?accountId=acc-1" />);
    await waitFor(() => expect((screen.getByLabelText('Email Address') as HTMLInputElement).disabled).toBe(true));
    expect(calls).not.toContain('POST /pricing/api/logout');
  });
});
