import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createApiClient } from '@hangar/api-client';
import { catalogFixture } from '@hangar/api-client/testing';
import { setApiClient } from './api';
import { BuyPage, CONNECT_ERROR, includedRegionName } from './BuyPage';
import BuyModule from './remote-module';

const ok = () => new Response(JSON.stringify(catalogFixture), { status: 200 });

function serve(...answers: Array<() => Response | Promise<Response>>) {
  const fetch = vi.fn(async () => {
    const next = answers.length > 1 ? answers.shift()! : answers[0]!;
    return next();
  });
  setApiClient(createApiClient({ fetch, timeoutMs: 200 }));
  return fetch;
}

afterEach(() => setApiClient(undefined));

const price = (code: string) => screen.getByTestId(`price-${code}`).textContent;

describe('buy page', () => {
  it('shows the three individual plans with live USD prices, Essential selected', async () => {
    const fetch = serve(ok);
    render(<BuyPage search="" />);
    expect(screen.getByRole('status').textContent).toContain('Loading plans');
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(fetch).toHaveBeenCalledWith('/account/api/subscription/available/add-ons', expect.anything());
    const plans = within(document.getElementById('section-plans')!).getAllByRole('radio');
    expect(plans.map((r) => r.getAttribute('value'))).toEqual(['basic_plus', 'pro_plus', 'performance']);
    expect(price('basic_plus')).toBe('$125/yr');
    expect(price('pro_plus')).toBe('$199.99/yr');
    expect(price('performance')).toBe('$370/yr');
    expect((screen.getByRole('radio', { name: /^Essential/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByText('Prices do not include VAT')).toBeNull();
  });

  it('lists regions (without the included one) and add-ons', async () => {
    serve(ok);
    render(<BuyPage search="" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    const regions = within(document.getElementById('section-regions')!).getAllByRole('checkbox');
    expect(regions.map((r) => r.id)).toEqual(['regions-add_geo_ca', 'regions-add_geo_eu']);
    const addOns = within(document.getElementById('section-addOns')!).getAllByRole('checkbox');
    expect(addOns.map((r) => r.id)).toEqual(['addOns-vectormap', 'addOns-syn_vis', 'addOns-logbook', 'addOns-active_navlog']);
    fireEvent.click(screen.getByLabelText(/Europe/));
    expect((screen.getByLabelText(/Europe/) as HTMLInputElement).checked).toBe(true);
  });

  it('shows euro prices and the VAT note in EUR', async () => {
    serve(ok);
    render(<BuyPage search="?currency=EUR" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(price('pro_plus')).toBe('€185.99/yr');
    expect(screen.getAllByText('Prices do not include VAT')).toHaveLength(3);
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('EUR');
  });

  it('shows the VAT note for GBP too, not for CAD', async () => {
    serve(ok);
    const { unmount } = render(<BuyPage search="?currency=gbp" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(price('pro_plus')).toBe('£159.99/yr');
    expect(screen.getAllByText('Prices do not include VAT').length).toBeGreaterThan(0);
    unmount();
    render(<BuyPage search="?currency=CAD" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(price('pro_plus')).toBe('CA$269.99/yr');
    expect(screen.queryByText('Prices do not include VAT')).toBeNull();
  });

  it('falls back to USD for an unknown currency', async () => {
    serve(ok);
    render(<BuyPage search="?currency=XYZ" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(price('pro_plus')).toBe('$199.99/yr');
    expect((screen.getByLabelText('Currency') as HTMLSelectElement).value).toBe('USD');
  });

  it('reloads with the chosen currency', async () => {
    serve(ok);
    const changeCurrency = vi.fn();
    render(<BuyPage search="" changeCurrency={changeCurrency} />);
    fireEvent.change(await screen.findByLabelText('Currency'), { target: { value: 'EUR' } });
    expect(changeCurrency).toHaveBeenCalledWith('EUR');
  });

  it('hides the currency selector when fewer than two currencies are supported', async () => {
    serve(() => new Response(JSON.stringify({ ...catalogFixture, currencies: [{ code: 'USD', symbol: '$' }] })));
    render(<BuyPage search="?currency=EUR" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(screen.queryByLabelText('Currency')).toBeNull();
    // EUR is not supported by the server: USD.
    expect(price('pro_plus')).toBe('$199.99/yr');
  });

  it('preselects plan and add-ons from the addOns query, dropping unknown codes', async () => {
    serve(ok);
    render(<BuyPage search="?addOns=basic_plus,syn_vis,nope,<b>" />);
    await screen.findByRole('radio', { name: /^Starter/ });
    expect((screen.getByRole('radio', { name: /^Starter/ }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText(/Synthetic Vision/) as HTMLInputElement).checked).toBe(true);
  });

  it('shows features the plan already includes as included (forPlans)', async () => {
    serve(ok);
    render(<BuyPage search="?addOns=syn_vis" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    // Essential includes Aeronautical Maps; Synthetic Vision is an add-on to it.
    const maps = screen.getByLabelText(/Aeronautical Maps/) as HTMLInputElement;
    expect(maps.disabled && maps.checked).toBe(true);
    expect(screen.getByText('Included with Essential')).toBeTruthy();
    expect((screen.getByLabelText(/Synthetic Vision/) as HTMLInputElement).checked).toBe(true);
    // Premium includes Synthetic Vision too: the add-on is dropped.
    fireEvent.click(screen.getByRole('radio', { name: /^Premium/ }));
    const sv = screen.getByLabelText(/Synthetic Vision/) as HTMLInputElement;
    expect(sv.disabled).toBe(true);
    expect(screen.getAllByText('Included with Premium')).toHaveLength(2);
    // Back to Starter: nothing included, the dropped add-on stays unselected, and
    // Active Navlog (sold from Essential up) is not available.
    fireEvent.click(screen.getByRole('radio', { name: /^Starter/ }));
    expect((screen.getByLabelText(/Synthetic Vision/) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText(/Aeronautical Maps/) as HTMLInputElement).disabled).toBe(false);
    const navlog = screen.getByLabelText(/Active Navlog/) as HTMLInputElement;
    expect(navlog.disabled && !navlog.checked).toBe(true);
    expect(screen.getByText('Not available with Starter')).toBeTruthy();
  });

  it('shows a retryable error when the catalogue is down, and recovers on Retry', async () => {
    const fetch = serve(
      () => new Response(JSON.stringify({ code: 'unavailable', message: 'catalog unavailable' }), { status: 503 }),
      ok,
    );
    render(<BuyPage search="" />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(CONNECT_ERROR);
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByRole('radio', { name: /^Essential/ });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('shows the error state when the catalogue is too slow', async () => {
    setApiClient(
      createApiClient({
        timeoutMs: 30,
        fetch: (_u, init) => new Promise((_r, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
      }),
    );
    render(<BuyPage search="" />);
    expect((await screen.findByRole('alert')).textContent).toContain(CONNECT_ERROR);
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('collapses a section', async () => {
    serve(ok);
    render(<BuyPage search="" />);
    await screen.findByRole('radio', { name: /^Essential/ });
    const toggle = screen.getByRole('button', { name: /Add-ons/ });
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-expanded')).toBe('false'));
  });
});

describe('includedRegionName', () => {
  it.each([
    ['United States (included)', 'United States'],
    ['Europe', 'Europe'],
    [undefined, 'one region'],
    ['included_geo_us', 'one region'],
  ])('%s -> %s', (title, want) => {
    expect(includedRegionName(title)).toBe(want);
  });
});

describe('buy module routes', () => {
  it('renders placeholders for the sub-pages', () => {
    render(<BuyModule route="/buy/success" params={{}} />);
    expect(screen.getByRole('heading', { name: 'Thank you for your purchase' })).toBeTruthy();
  });
});
