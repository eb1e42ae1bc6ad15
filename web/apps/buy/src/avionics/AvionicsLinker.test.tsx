import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AvionicsLinker, fetchLinkedAccounts } from './AvionicsLinker';

afterEach(() => vi.unstubAllGlobals());

function json(status: number, body: unknown) {
  return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }));
}

describe('avionics partner-account linker', () => {
  it('treats a failed list as no accounts', async () => {
    vi.stubGlobal('fetch', vi.fn(() => json(500, { code: 'internal', message: 'boom' })));
    expect(await fetchLinkedAccounts('acc-1')).toEqual([]);
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('offline'))));
    expect(await fetchLinkedAccounts('acc-1')).toEqual([]);
  });

  it('lists partner accounts and links one', async () => {
    document.cookie = 'XSRF-TOKEN=t1';
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init?: RequestInit) => {
        const path = new URL(url).pathname;
        calls.push(`${init?.method ?? 'GET'} ${path}`);
        if (path.startsWith('/buy/jepp/linked-accounts/')) return json(200, { accounts: [{ jeppAccountId: 'JP-1', username: 'pilot', linkedAvionics: false }] });
        return json(200, { status: 'ok', account: { jeppAccountId: 'JP-1', username: 'pilot', linkedAvionics: true } });
      }),
    );
    render(<AvionicsLinker accountUuid="acc-1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Link avionics' }));
    await waitFor(() => expect(screen.getByText('Linked')).toBeTruthy());
    expect(calls).toEqual(['GET /buy/jepp/linked-accounts/acc-1', 'POST /buy/jepp/linked-avionics/acc-1/JP-1']);
  });

  it('renders nothing without an account', () => {
    const { container } = render(<AvionicsLinker />);
    expect(container.innerHTML).toBe('');
  });
});
