import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { createApiClient } from '@hangar/api-client';
import { catalogFixture } from '@hangar/api-client/testing';
import { setApiClient } from './api';
import { PricingPage, CONNECT_ERROR } from './PricingPage';
import MarketingModule from './remote-module';
import { standaloneProps } from './standalone';

afterEach(() => setApiClient(undefined));

function serve(...answers: Array<() => Response>) {
  const fetch = vi.fn(async () => (answers.length > 1 ? answers.shift()! : answers[0]!)());
  setApiClient(createApiClient({ fetch }));
  return fetch;
}
const ok = () => new Response(JSON.stringify(catalogFixture));

describe('home', () => {
  it('navigates through the shell', () => {
    const navigate = vi.fn();
    render(<MarketingModule route="/" params={{}} navigate={navigate} />);
    expect(screen.getByRole('heading', { level: 1 })).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'Compare plans' }));
    expect(navigate).toHaveBeenCalledWith('/pricing');
  });
  it('keeps plain links without a shell', () => {
    render(<MarketingModule route="/" params={{}} />);
    expect(screen.getByRole('link', { name: 'Buy a subscription' }).getAttribute('href')).toBe('/buy');
  });
});

describe('pricing', () => {
  it('compares the three individual plans with a sticky header', async () => {
    serve(ok);
    render(<MarketingModule route="/pricing" params={{}} />);
    const table = await screen.findByTestId('comparison');
    const heads = within(table).getAllByRole('columnheader');
    expect(heads.map((h) => h.getAttribute('data-plan'))).toEqual([null, 'basic_plus', 'pro_plus', 'performance']);
    expect(heads[2]?.textContent).toContain('Essential');
    expect(heads[2]?.textContent).toContain('$199.99/yr');
    // The column heads stay in view while the table scrolls (the module stylesheet applies).
    expect(getComputedStyle(heads[1]!).position).toBe('sticky');
    // forPlans names the plans that can buy a feature; higher tiers include it.
    const cells = (name: RegExp) =>
      within(within(table).getByRole('rowheader', { name }).closest('tr')!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells(/Synthetic Vision/)).toEqual(['Add-on, $25/yr', 'Add-on, $25/yr', 'Included']);
    expect(cells(/Aeronautical Maps/)).toEqual(['Add-on, $25/yr', 'Included', 'Included']);
    expect(cells(/Logbook/)).toEqual(['Add-on, $50/yr', 'Add-on, $50/yr', 'Add-on, $50/yr']);
    expect(cells(/Active Navlog/)).toEqual(['Not available', 'Add-on, $240/yr', 'Add-on, $240/yr']);
  });

  it('uses the currency query, with the VAT note for EUR and USD for unknown codes', async () => {
    serve(ok);
    const { unmount } = render(<PricingPage search="?currency=EUR" />);
    expect((await screen.findByTestId('comparison')).textContent).toContain('€185.99/yr');
    expect(screen.getByText(/Prices do not include VAT/)).toBeTruthy();
    unmount();
    render(<PricingPage search="?currency=ZZZ" />);
    expect((await screen.findByTestId('comparison')).textContent).toContain('$199.99/yr');
  });

  it('links each plan to the buy page', async () => {
    serve(ok);
    render(<PricingPage search="" />);
    await screen.findByTestId('comparison');
    expect(screen.getByRole('link', { name: 'Buy Premium' }).getAttribute('href')).toBe('/buy?addOns=performance&currency=USD');
  });

  it('offers Retry when the catalogue is down', async () => {
    serve(() => new Response('', { status: 503 }), ok);
    render(<PricingPage search="" />);
    expect((await screen.findByRole('alert')).textContent).toContain(CONNECT_ERROR);
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('comparison')).toBeTruthy();
  });

  it('maps standalone paths', () => {
    expect(standaloneProps('/pricing').route).toBe('/pricing');
    expect(standaloneProps('/').route).toBe('/');
  });
});

describe('site navigation', () => {
  it('keeps a drop-down that hovering opened open when its button is then clicked; a second click closes it', () => {
    render(<MarketingModule route="/" params={{}} />);
    const plans = within(screen.getByRole('navigation', { name: 'Site' })).getByRole('button', { name: /Plans/ });
    fireEvent.mouseEnter(plans);
    expect(plans.getAttribute('aria-expanded')).toBe('true');
    // A pointer reaches the button (opening it) before it clicks: the click must not undo that.
    fireEvent.click(plans);
    expect(plans.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(plans);
    expect(plans.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(plans);
    expect(plans.getAttribute('aria-expanded')).toBe('true');
  });
});
