import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import BuyModule from './remote-module';

afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
  vi.restoreAllMocks();
});

// Issue 31: /buy/military_intl fell back to the domestic plans on reload (the address is
// rewritten to /buy/military, spec 000 §2, and the reload read only the address).
describe('/buy/military_intl', () => {
  it('is rewritten to /buy/military and stays international through a reload', async () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 200 }));
    window.history.replaceState(null, '', '/buy/military_intl');
    const first = render(<BuyModule route="/buy/military_intl" params={{}} />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('International Military Plans');
    expect(window.location.pathname).toBe('/buy/military');
    first.unmount();
    // The reload: the shell matches the rewritten address.
    render(<BuyModule route="/buy/military" params={{}} />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('International Military Plans');
  });

  it('a visit to /buy/military itself stays domestic', async () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 200 }));
    window.history.replaceState(null, '', '/buy/military');
    render(<BuyModule route="/buy/military" params={{}} />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Military Plans');
  });
});
