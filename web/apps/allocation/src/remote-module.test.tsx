import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import AllocationModule from './remote-module';
import { standaloneProps } from './standalone';
import { allocationApi, assignmentError, reportError, REPORT_ERROR } from './api';
import { ApiError, createApiClient } from '@hangar/api-client';
import { sectionHeights, fullHeight } from './sidebar';

// The panel loads the report, then the list: on a busy 2-core CI machine that can take
// longer than the 1 s default wait for an element.
configure({ asyncUtilTimeout: 5000 });
afterEach(cleanup);

type Handler = (url: URL, init: RequestInit) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;

/** A fake of the allocation routes over fetch: the real client and parsing run. */
function fakeApi(handler: Handler, calls: Array<{ method: string; url: URL; body: unknown }> = []) {
  const client = createApiClient({
    baseUrl: 'http://store.test',
    cookie: () => 'XSRF-TOKEN=t',
    fetch: async (input, init = {}) => {
      const url = new URL(String(input), 'http://store.test');
      calls.push({ method: init.method ?? 'GET', url, body: init.body ? JSON.parse(String(init.body)) : undefined });
      const r = await handler(url, init);
      return new Response(JSON.stringify(r.body), { status: r.status, headers: { 'content-type': 'application/json' } });
    },
  });
  return allocationApi(client.allocation);
}

const report = {
  ownerId: 'org-1',
  addOnAllocationReports: {
    efb_bridge: { addOnCode: 'efb_bridge', licensingMethod: 'USER_ALLOCATION', bought: 2, assigned: 1, free: 1, targetTypes: ['USER'] },
    business_pro: { addOnCode: 'business_pro', licensingMethod: 'USER_ALLOCATION', bought: 5, free: 5, isPlan: true, targetTypes: ['USER'] },
    runway_tp_pilatus: { addOnCode: 'runway_tp_pilatus', licensingMethod: 'TAIL_ALLOCATION', bought: 2, assigned: 1, free: 1, expired: 1, targetTypes: ['TAIL'] },
  },
};
const users = {
  users: [
    { accountUuid: 'u1', email: 'a@acme.test', assignedAddOnCodes: ['efb_bridge'] },
    { accountUuid: 'u2', email: 'b@acme.test', expiredAddOnCodes: ['business_pro'] },
  ],
  total: 2,
  page: 0,
  size: 10,
};

function routes(overrides: Partial<Record<string, { status: number; body: unknown }>> = {}): Handler {
  return (url) => {
    const o = overrides[url.pathname];
    if (o) return o;
    if (url.pathname.endsWith('/allocation/report')) return { status: 200, body: report };
    if (url.pathname.startsWith('/account/api/users/by-allocation')) return { status: 200, body: users };
    if (url.pathname.endsWith('/allocation/tails')) return { status: 200, body: { tails: [{ tailId: 'N412AC', assignedAddOnCodes: ['runway_tp_pilatus'] }], total: 1 } };
    if (url.pathname.endsWith('/allocation/assign')) return { status: 200, body: { allocation: {} } };
    return { status: 404, body: { code: 'not_found', message: 'no route' } };
  };
}

describe('allocation remote', () => {
  it('renders its heading and the report in the sidebar', async () => {
    render(<AllocationModule {...standaloneProps('/')} api={fakeApi(routes())} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Licence allocation' })).toBeTruthy();
    const table = await screen.findByRole('table', { name: 'Allocation report' });
    expect(within(table).getByTestId('free-efb_bridge').textContent).toBe('1');
    // The plan is listed first.
    expect(within(table).getAllByRole('row')[1]?.textContent).toContain('business_pro');
    expect(await screen.findByText('a@acme.test')).toBeTruthy();
    // Two loads, each rendered when it lands (a transition): wait for the second too.
    expect(await screen.findByText('business_pro (expired)')).toBeTruthy();
  });

  // CI found a user's row gone between choosing a licence and clicking Assign: once the
  // report is in the list is read again, and the table emptied while it was.
  it('keeps the listed rows while the list is read again', async () => {
    let listed = 0;
    let firstListed!: () => void;
    const listedOnce = new Promise<void>((r) => (firstListed = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const listedFirst = routes();
    const api = fakeApi(async (url, init) => {
      if (url.pathname.endsWith('/allocation/report')) await listedOnce; // the report after the first list
      if (url.pathname.startsWith('/account/api/users/by-allocation')) {
        listed += 1;
        if (listed === 1) firstListed();
        else await held;
      }
      return listedFirst(url, init);
    });
    render(<AllocationModule {...standaloneProps('/')} api={api} />);
    const users = await screen.findByRole('table', { name: 'Users' });
    await waitFor(() => expect(listed).toBe(2));
    await waitFor(() => expect(users.getAttribute('aria-busy')).toBe('true'));
    expect(within(users).getByText('a@acme.test')).toBeTruthy();
    expect(within(users).getByRole('button', { name: 'Assign to b@acme.test' })).toBeTruthy();
    release();
    await waitFor(() => expect(users.getAttribute('aria-busy')).toBe('false'));
    expect(within(users).getByText('b@acme.test')).toBeTruthy();
  });

  it('assigns one licence to a user with the assign route', async () => {
    const calls: Array<{ method: string; url: URL; body: unknown }> = [];
    render(<AllocationModule {...standaloneProps('/')} api={fakeApi(routes(), calls)} />);
    // The licence is offered once the pools are in (the list is read again then, and keeps
    // its rows while it is: CI once found the row gone between the choice and the click).
    const select = await screen.findByRole('combobox', { name: 'Licence for b@acme.test' });
    await waitFor(() => expect(select.querySelector('option[value="efb_bridge"]')).not.toBeNull());
    fireEvent.change(select, { target: { value: 'efb_bridge' } });
    fireEvent.click(screen.getByRole('button', { name: 'Assign to b@acme.test' }));
    expect((await screen.findByTestId('allocation-ok')).textContent).toBe('Assigned efb_bridge to b@acme.test.');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url.pathname).toBe('/account/api/subscription/allocation/assign');
    expect(post?.body).toEqual({ targetType: 'USER', targetId: 'u2', addOnCodes: ['efb_bridge'] });
  });

  it('shows the insufficient-licences message of a refused bulk assignment', async () => {
    const handler = routes({
      '/account/api/subscription/allocation/bulk-assign/org-1': {
        status: 400,
        body: { code: 'invalid_argument', message: 'Insufficient addOn quantity for efb_bridge' },
      },
    });
    const calls: Array<{ method: string; url: URL; body: unknown }> = [];
    render(<AllocationModule {...standaloneProps('/')} api={fakeApi(handler, calls)} />);
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Select a@acme.test' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select b@acme.test' }));
    fireEvent.change(screen.getByLabelText('Licence to assign'), { target: { value: 'efb_bridge' } });
    fireEvent.click(screen.getByRole('button', { name: 'Assign to selected' }));
    expect((await screen.findByTestId('allocation-error')).textContent).toBe('Insufficient licenses for assignment. efb_bridge');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({
      allocations: [
        { targetType: 'USER', targetId: 'u1', addOnCodes: ['efb_bridge'] },
        { targetType: 'USER', targetId: 'u2', addOnCodes: ['efb_bridge'] },
      ],
      unassign: [],
    });
  });

  it('says the report failed, unless the server gave a message', async () => {
    render(<AllocationModule {...standaloneProps('/')} api={fakeApi(routes({ '/account/api/subscription/allocation/report': { status: 500, body: {} } }))} />);
    expect((await screen.findByTestId('allocation-error')).textContent).toBe(REPORT_ERROR);
    cleanup();
    render(
      <AllocationModule
        {...standaloneProps('/')}
        api={fakeApi(routes({ '/account/api/subscription/allocation/report': { status: 403, body: { code: 'permission_denied', message: 'You are not allowed to read the organization’s allocation report.' } } }))}
      />,
    );
    expect((await screen.findByTestId('allocation-error')).textContent).toContain('You are not allowed');
  });

  it('pages, sorts and filters the users list through the query', async () => {
    const calls: Array<{ method: string; url: URL; body: unknown }> = [];
    render(<AllocationModule {...standaloneProps('/')} api={fakeApi(routes(), calls)} />);
    await screen.findByText('a@acme.test');
    fireEvent.click(screen.getByRole('button', { name: /E-mail/ }));
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('sortDirection') === 'desc')).toBe(true));
    fireEvent.change(screen.getByLabelText('Filter by e-mail'), { target: { value: 'b@' } });
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('userFilters') === 'b@')).toBe(true));
    fireEvent.change(screen.getByLabelText('Licence'), { target: { value: 'efb_bridge' } });
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('assignedAddOnCodes') === 'efb_bridge')).toBe(true));
  });
});

describe('messages', () => {
  it('takes the add-on code from the insufficient-quantity text', () => {
    expect(assignmentError(new ApiError(400, 'invalid_argument', 'Insufficient addOn quantity for runway_tp_pilatus'))).toBe(
      'Insufficient licenses for assignment. runway_tp_pilatus',
    );
    expect(assignmentError(new ApiError(403, 'permission_denied', 'You are not allowed to assign licences to aircraft.'))).toBe(
      'You are not allowed to assign licences to aircraft.',
    );
  });
  it('falls back to the report message without a server message', () => {
    expect(reportError(new ApiError(500, 'internal', 'internal error'))).toBe(REPORT_ERROR);
    expect(reportError(new ApiError(0, 'unavailable', 'GET x could not be reached'))).toBe(REPORT_ERROR);
    expect(reportError(new ApiError(400, 'invalid_argument', 'x', [{ field: 'a', message: 'Bad a.' }]))).toBe('Bad a.');
  });
});

describe('sidebar sizes (spec 001 §9)', () => {
  const base = { showCart: true, showProduct: true, success: false, windowHeight: 900, allocationPanelHeight: 840 };
  it('splits 65/35 of the panel height minus 40 px while the cart shows', () => {
    expect(sectionHeights(base)).toEqual({ cart: 520, product: 280, full: 800 });
  });
  it('collapses the cart to auto and gives the product the full height when hidden or on success', () => {
    expect(sectionHeights({ ...base, showCart: false })).toEqual({ cart: 'auto', product: 800, full: 800 });
    expect(sectionHeights({ ...base, success: true })).toEqual({ cart: 'auto', product: 800, full: 800 });
  });
  it('collapses the product to 30 px', () => {
    expect(sectionHeights({ ...base, showProduct: false })).toEqual({ cart: 770, product: 30, full: 800 });
  });
  it('takes 83 px off the window height when the panel is under 700 px', () => {
    expect(fullHeight(900, 699)).toBe(817);
    expect(fullHeight(900, 700)).toBe(660);
  });
});
