import { expect, test } from '@playwright/test';
import { expectShell, keepScreenshot } from '../support/helpers';

const PAGES = [
  { path: '/', remote: 'marketing', heading: /./ },
  { path: '/pricing', remote: 'marketing', heading: 'Compare plans' },
  { path: '/buy', remote: 'buy', heading: 'Your Plan' },
  { path: '/buy/success', remote: 'buy', heading: 'Your receipts' },
  { path: '/buy/sales-mode', remote: 'buy', heading: 'Sales mode' },
  { path: '/buy/military', remote: 'buy', heading: 'Military Plans' },
  { path: '/gift', remote: 'gift', heading: 'BUY A GIFT CERTIFICATE' },
  { path: '/product/cart/e2e-cart', remote: 'oneoff', heading: 'COMPLETE YOUR ORDER' },
  { path: '/account/allocation', remote: 'allocation', heading: 'Licence allocation' },
  { path: '/account', remote: 'account', heading: 'Your account' },
] as const;

test.describe('each remote renders inside the shell', () => {
  for (const p of PAGES) {
    test(`${p.path} -> ${p.remote}`, async ({ page }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(p.path);
      await expectShell(page);
      const remote = page.locator(`main [data-remote="${p.remote}"]`).first();
      await expect(remote).toBeVisible();
      await expect(remote.getByRole('heading', { level: 1 })).toHaveText(p.heading);
      // The remote was loaded through Module Federation from the same origin.
      const entries = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((n) => n.endsWith('remoteEntry.js')),
      );
      expect(entries).toContain(`/remotes/${p.remote}/remoteEntry.js`);
      expect(errors).toEqual([]);
      await keepScreenshot(page, `remote-${p.remote}${p.path.replace(/[^a-z0-9]+/gi, '-')}`);
    });
  }

  test('the military-international path is rewritten to the military path', async ({ page }) => {
    await page.goto('/buy/military_intl?email=a%40b.c');
    await expect(page.getByRole('heading', { level: 1, name: 'Military Plans' })).toBeVisible();
    await expect(page).toHaveURL(/\/buy\/military\?email=a%40b\.c$/);
  });

  test('the header navigation moves between remotes without a reload', async ({ page }) => {
    await page.goto('/');
    await page.evaluate(() => ((window as unknown as { __marker: number }).__marker = 1));
    // Marketing pages show their own Site bar (the shell's Main bar steps aside there).
    const site = page.getByRole('navigation', { name: 'Site' });
    await site.getByRole('button', { name: 'Plans' }).click();
    await site.getByRole('link', { name: 'Compare plans' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Compare plans' })).toBeVisible();
    await site.getByRole('button', { name: 'Gifts' }).click();
    await site.getByRole('link', { name: 'Gift certificates' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(1);
    await expect(page).toHaveTitle('Gift certificates · Hangar');
  });

  test('React is one shared singleton, provided by the shell', async ({ page }) => {
    await page.goto('/buy');
    // Hooks in the remote work only with the shell's React; a second copy would throw
    // "Invalid hook call". The federation share scopes say who provides React to whom.
    await expect(page.getByRole('radio', { name: /^Essential/ })).toBeChecked();
    const providers = await page.evaluate(() => {
      type Shared = Record<string, Record<string, Record<string, Record<string, { from?: string }>>>>;
      const fed = (globalThis as unknown as { __FEDERATION__?: { __SHARE__?: Shared } }).__FEDERATION__;
      const out: Record<string, string[]> = { react: [], 'react-dom': [] };
      for (const [consumer, scopes] of Object.entries(fed?.__SHARE__ ?? {})) {
        for (const pkgs of Object.values(scopes)) {
          for (const pkg of ['react', 'react-dom']) {
            for (const v of Object.values(pkgs[pkg] ?? {})) out[pkg]!.push(`${consumer}<-${v.from ?? '?'}`);
          }
        }
      }
      return out;
    });
    expect(providers.react).toContain('buy<-shell');
    expect(new Set(providers.react!.map((p) => p.split('<-')[1]))).toEqual(new Set(['shell']));
    expect(new Set(providers['react-dom']!.map((p) => p.split('<-')[1]))).toEqual(new Set(['shell']));
  });
});
