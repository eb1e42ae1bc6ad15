import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { RemoteModuleProps } from '@hangar/ui';
import { App } from './App';
import { RemoteLoaderContext, resetRemoteCache } from './RemoteSlot';
import { RemoteLoadError, type RemoteLoader } from './remotes';
import type { RemoteName } from './runtime-config';

afterEach(() => resetRemoteCache());

/** A fake remote that prints which remote and route it got. */
const fake = (name: RemoteName) =>
  function Fake({ route, params }: RemoteModuleProps) {
    return (
      <p data-testid="remote">
        {name} {route} {JSON.stringify(params)}
      </p>
    );
  };

function renderAt(path: string, loader: RemoteLoader) {
  return render(
    <RemoteLoaderContext.Provider value={loader}>
      <MemoryRouter initialEntries={[path]}>
        <App />
      </MemoryRouter>
    </RemoteLoaderContext.Provider>,
  );
}

describe('shell routes', () => {
  it.each([
    ['/', 'marketing /'],
    ['/pricing', 'marketing /pricing'],
    ['/buy', 'buy /buy'],
    ['/buy/success', 'buy /buy/success'],
    ['/buy/sales-mode', 'buy /buy/sales-mode'],
    ['/buy/military', 'buy /buy/military'],
    ['/buy/military_intl', 'buy /buy/military_intl'],
    ['/buy/flarm,synthetic_vision', 'buy /buy/:addOns {"addOns":"flarm,synthetic_vision"}'],
    ['/buy/flarm/3', 'buy /buy/:addOns/:quantity {"addOns":"flarm","quantity":"3"}'],
    ['/gift', 'gift /gift'],
    ['/product/cart/abc-123', 'oneoff /product/cart/:cartId {"cartId":"abc-123"}'],
    ['/account/allocation', 'allocation /account/allocation'],
    ['/account/set-password', 'account /account/set-password'],
    ['/account/forgot-password', 'account /account/forgot-password'],
  ])('%s renders %s', async (path, want) => {
    renderAt(path, async (name) => fake(name));
    expect((await screen.findByTestId('remote')).textContent).toContain(want);
    // Marketing pages bring their own Site bar; the shell's Main bar would be a second one.
    expect(screen.queryAllByRole('navigation', { name: 'Main' })).toHaveLength(want.startsWith('marketing') ? 0 : 1);
    expect(screen.getByRole('banner')).toBeTruthy();
  });

  it.each(['/', '/pricing', '/privacy-policy', '/about/privacy'])('%s leaves the site navigation to the marketing page', async (path) => {
    renderAt(path, async (name) => fake(name));
    await screen.findByTestId('remote');
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Hangar' }).getAttribute('href')).toBe('/');
  });

  it('sets the page title', async () => {
    renderAt('/pricing', async (name) => fake(name));
    await screen.findByTestId('remote');
    expect(document.title).toBe('Compare plans · Hangar');
  });

  it('shows not found for unknown paths', () => {
    renderAt('/nope', async (name) => fake(name));
    expect(screen.getByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });

  // Issue 45: gift certificates and one-off carts are paid once; the footer said 'Prices are per year'.
  it.each([
    ['/buy', true],
    ['/pricing', true],
    ['/gift', false],
    ['/product/cart/abc-123', false],
  ])('%s footer says prices are per year: %s', async (path, perYear) => {
    renderAt(path, async (name) => fake(name));
    await screen.findByTestId('remote');
    expect(screen.getByRole('contentinfo').textContent?.includes('Prices are per year')).toBe(perYear);
  });

  it('marks the current nav link', async () => {
    renderAt('/buy', async (name) => fake(name));
    await screen.findByTestId('remote');
    expect(screen.getByRole('link', { name: 'Buy' }).getAttribute('aria-current')).toBe('page');
  });
});

describe('remote loading', () => {
  it('shows a loading state while the remote loads', async () => {
    let resolve!: (c: ReturnType<typeof fake>) => void;
    renderAt('/buy', () => new Promise((r) => (resolve = r)));
    expect(screen.getByRole('status').textContent).toContain('Loading the buy page');
    await act(async () => resolve(fake('buy')));
    expect(await screen.findByTestId('remote')).toBeTruthy();
  });

  it('says clearly when a remote fails to load, and Retry loads it again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const loader = vi.fn<RemoteLoader>(async (name, attempt) => {
      if (attempt === 0) throw new RemoteLoadError(name, new Error('Failed to fetch remoteEntry.js'));
      return fake(name);
    });
    renderAt('/gift', loader);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Sorry, the gift certificates could not be loaded.');
    // The shell itself still works.
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('remote')).textContent).toContain('gift /gift');
    expect(loader).toHaveBeenLastCalledWith('gift', 1);
  });

  it('offers the Main bar when a marketing page, which brings the site navigation, fails to load', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderAt('/pricing', async (name) => {
      throw new RemoteLoadError(name, new Error('Failed to fetch remoteEntry.js'));
    });
    expect((await screen.findByRole('alert')).textContent).toContain('could not be loaded');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect([...nav.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual(['/pricing', '/buy', '/gift', '/account/allocation', '/account']);
  });

  it('contains a remote that throws while rendering', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderAt('/account/allocation', async () => () => {
      throw new Error('boom');
    });
    expect((await screen.findByRole('alert')).textContent).toContain('something went wrong on the licence allocation');
  });
});
