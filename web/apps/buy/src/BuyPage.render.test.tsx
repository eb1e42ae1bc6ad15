import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createApiClient } from '@hangar/api-client';
import { catalogFixture } from '@hangar/api-client/testing';
import { BuyPage } from './BuyPage';
import { setApiClient } from './api';

// Renders per section, counted where the sections render: the shared section frame (by id)
// and the card form. A query answer must re-render only what reads it (issue 31: /buy's
// blocking time was the whole configurator re-rendered on every answer).
const renders = vi.hoisted(() => new Map<string, number>());
const count = (k: string) => renders.set(k, (renders.get(k) ?? 0) + 1);
vi.mock('@hangar/ui', async (importOriginal) => {
  const ui = await importOriginal<typeof import('@hangar/ui')>();
  return {
    ...ui,
    SectionBlock: (p: Parameters<typeof ui.SectionBlock>[0]) => {
      count(`section:${p.id}`);
      return ui.SectionBlock(p);
    },
    HostedCardFields: (p: Parameters<typeof ui.HostedCardFields>[0]) => {
      count(`card:${p.flow ?? 'card'}`);
      return ui.HostedCardFields(p);
    },
  };
});

// A gate the invoice panel waits on (suspends) while it renders the given total: the page's
// render of that answer is then in progress for as long as the test holds it.
const hold = vi.hoisted(() => ({ cents: -1, gate: undefined as Promise<void> | undefined }));
vi.mock('./InvoicePanel', async (importOriginal) => {
  const m = await importOriginal<typeof import('./InvoicePanel')>();
  return {
    ...m,
    InvoicePanel: (p: Parameters<typeof m.InvoicePanel>[0]) => {
      if (hold.gate && Number(p.preview?.invoice?.totalInCents) === hold.cents) throw hold.gate;
      return m.InvoicePanel(p);
    },
  };
});

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

function fakeEdge() {
  const previews: Array<{ addOns: string[] }> = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.pathname === '/account/api/subscription/available/add-ons') return json(catalogFixture);
    if (url.pathname === '/buy/api/me') return json({ loggedIn: false });
    if (url.pathname === '/buy/api/invoice/preview') {
      const body = JSON.parse(String(init?.body)) as { addOns: string[]; currency: string; counter: number };
      previews.push(body);
      const addOns = body.addOns.length ? body.addOns : ['pro_plus', 'included_geo_us'];
      const price = 19999 + (addOns.length - 2) * 10000;
      return json({
        addOns,
        currency: body.currency,
        regionMode: 'checkbox',
        lockedAddOns: [],
        invoice: { currency: body.currency, counter: body.counter, totalInCents: price, subtotalInCents: price, taxInCents: 0, invoiceItems: [] },
      });
    }
    return json({});
  });
  setApiClient(createApiClient({ fetch, baseUrl: 'http://edge' }));
  return { previews };
}

configure({ asyncUtilTimeout: 8000 });

afterEach(() => {
  cleanup();
  setApiClient(undefined);
  renders.clear();
  hold.cents = -1;
  hold.gate = undefined;
});

describe('BuyPage: a price answer re-renders only what reads it', { timeout: 30_000 }, () => {
  it('re-prices a region without rendering the add-ons or the card form again', async () => {
    const edge = fakeEdge();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <BuyPage location={{ pathname: '/buy', search: '', hash: '' }} navigate={vi.fn()} reload={vi.fn()} />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    // The card form mounts after the choices (a render of its own) and reads answers of its
    // own: counted once every answer is in.
    await waitFor(() => expect(client.isFetching()).toBe(0));
    await waitFor(() => expect(screen.queryByTestId('hosted-fields')?.getAttribute('src') ?? screen.queryByText(/payment service did not answer/)).toBeTruthy());
    const before = new Map(renders);
    expect(before.get('section:addOns')).toBeGreaterThan(0);
    expect(before.get('card:card')).toBeGreaterThan(0);

    fireEvent.click(screen.getByRole('checkbox', { name: /Europe/ }));
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$299.99'));
    expect(edge.previews.at(-1)!.addOns).toContain('add_geo_eu');

    // The regions section shows the new choice; the add-ons and the card form read nothing
    // that changed.
    expect(renders.get('section:regions')).toBeGreaterThan(before.get('section:regions')!);
    expect(renders.get('section:addOns')).toBe(before.get('section:addOns'));
    expect(renders.get('card:card')).toBe(before.get('card:card'));
  });
});

// Issue 45: React writes an input's name, type and value again whenever its props change (a
// new onChange included); an answer that changed one option rewrote every input of the list,
// much of the commit that shows /buy's first price on a phone. Only the changed row renders now.
describe('BuyPage: an answer rewrites only the inputs whose option changed', { timeout: 30_000 }, () => {
  it('re-prices a region without touching the other regions\' inputs', async () => {
    fakeEdge();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <BuyPage location={{ pathname: '/buy', search: '', hash: '' }} navigate={vi.fn()} reload={vi.fn()} />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99'));
    await waitFor(() => expect(client.isFetching()).toBe(0));
    const europe = screen.getByRole('checkbox', { name: /Europe/ });
    const others = [...document.querySelectorAll('#section-regions input')].filter((i) => i !== europe);
    expect(others.length).toBeGreaterThan(1);
    const touched = new Set<Node>();
    const watch = new MutationObserver((records) => records.forEach((r) => touched.add(r.target)));
    for (const i of others) watch.observe(i, { attributes: true });
    fireEvent.click(europe);
    await waitFor(() => expect(screen.getByTestId('invoice-total').textContent).toBe('$299.99'));
    await waitFor(() => expect(client.isFetching()).toBe(0));
    for (const r of watch.takeRecords()) touched.add(r.target);
    watch.disconnect();
    expect([...touched].map((n) => (n as HTMLInputElement).value)).toEqual([]);
  });
});

describe('BuyPage: a price answer renders in a transition', { timeout: 30_000 }, () => {
  it('keeps the previous answer on screen, Pay disabled, until the new one has rendered', async () => {
    fakeEdge();
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <BuyPage location={{ pathname: '/buy', search: '', hash: '' }} navigate={vi.fn()} reload={vi.fn()} />
      </QueryClientProvider>,
    );
    const pay = () => screen.getByRole('button', { name: /^Pay/ }) as HTMLButtonElement;
    await waitFor(() => expect(pay().textContent).toBe('Pay $199.99'));
    await waitFor(() => expect(pay().disabled).toBe(false));

    let release!: () => void;
    hold.cents = 29999;
    hold.gate = new Promise<void>((r) => (release = r));
    fireEvent.click(screen.getByRole('checkbox', { name: /Europe/ }));
    // The answer (29999) has come and its render waits: the page stays as it was, and the
    // total on screen, no longer the cart's, may not be paid (before: Pay stayed enabled).
    await waitFor(() => expect(client.getQueryCache().findAll({ queryKey: ['preview'] }).some((q) => Number((q.state.data as { invoice?: { totalInCents?: number } } | undefined)?.invoice?.totalInCents) === 29999)).toBe(true));
    await waitFor(() => expect(client.isFetching()).toBe(0));
    await waitFor(() => expect(screen.queryByTestId('hosted-fields')?.getAttribute('src') ?? screen.queryByText(/payment service did not answer/)).toBeTruthy());
    expect(screen.getByTestId('invoice-total').textContent).toBe('$199.99');
    expect(pay().disabled).toBe(true);

    release();
    hold.gate = undefined;
    await waitFor(() => expect(pay().textContent).toBe('Pay $299.99'));
    await waitFor(() => expect(pay().disabled).toBe(false));
  });
});
