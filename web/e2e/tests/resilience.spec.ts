import { expect, test } from '@playwright/test';
import { CATALOG, expectAccessible, expectShell, keepScreenshot, planPrice } from '../support/helpers';

test('catalogue down: a retryable error state, and Retry works once it is back', async ({ page }) => {
  await page.route(CATALOG, (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'unavailable', message: 'catalog is down' }) }),
  );
  await page.goto('/buy');
  await expectShell(page);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('There was a problem connecting.');
  const retry = alert.getByRole('button', { name: 'Retry' });
  await expect(retry).toBeVisible();
  await keepScreenshot(page, 'buy-catalog-down');
  await expectAccessible(page, '/buy (catalog down)');

  await page.unroute(CATALOG);
  await retry.click();
  await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
});

test('catalogue unreachable (network error) on /pricing: error state with Retry', async ({ page }) => {
  await page.route(CATALOG, (route) => route.abort('connectionrefused'));
  await page.goto('/pricing');
  await expect(page.getByRole('alert')).toContainText('There was a problem connecting.');
  await page.unroute(CATALOG);
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByTestId('comparison')).toBeVisible();
});

test('catalogue slow: a loading state, never a blank page', async ({ page }) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(CATALOG, async (route) => {
    await released;
    await route.continue();
  });
  await page.goto('/buy');
  await expect(page.getByRole('status')).toContainText('Loading plans');
  await expect(page.getByRole('heading', { level: 1, name: 'Your Plan' })).toBeVisible();
  release();
  await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
});

test('a remote that fails to load: a clear message in the shell, and Retry loads it', async ({ page }) => {
  const entry = '**/remotes/gift/remoteEntry.js*';
  await page.route(entry, (route) => route.abort('failed'));
  await page.goto('/gift');
  await expectShell(page);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('could not be loaded');
  await keepScreenshot(page, 'remote-load-failure');
  // The rest of the shell still works.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).click();
  await expect(page.getByTestId('comparison')).toBeVisible();
  await page.goBack();
  // Back on /gift the shell tries the remote again: let that attempt fail before the route
  // is lifted (unrouting first raced it, and the page loaded without a Retry to press).
  await expect(alert).toContainText('could not be loaded');
  await page.unroute(entry);
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeVisible();
});
