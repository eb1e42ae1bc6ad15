import { test } from '@playwright/test';
import { expect, openBuy, total } from '../support/buy';

// The routes and query parameters of spec 000 §2 / spec 001 §2 that the journeys do not cover.
test.describe('/buy routes and query parameters', () => {
  test('/buy/{addOns} selects the add-ons named in the path', async ({ page }) => {
    await openBuy(page, '/buy/flarm_decode');
    await expect(page.locator('#section-addOns').getByRole('checkbox', { name: /^FLARM/ })).toBeChecked();
    await expect(page.getByTestId('invoice')).toContainText('FLARM');
  });

  test('/buy/{addOns}/{quantity} selects a business plan with that many licences', async ({ page }) => {
    await openBuy(page, '/buy/business_pro/5');
    await expect(page.locator('#section-plans').getByRole('radio', { name: /^Business Pro/ })).toBeChecked();
    await expect(page.getByRole('textbox', { name: 'Number of licenses', exact: true })).toHaveValue('5');
    await expect(page.getByTestId('invoice')).toContainText('× 5');
  });

  test('prompt=login opens the login modal headed "Login Required"', async ({ page }) => {
    await page.goto('/buy?prompt=login');
    const dialog = page.getByRole('dialog', { name: 'Login Required' });
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('invoice-total')).toBeVisible();
  });

  test('kiosk=true is appended to the page links while kiosk mode is active', async ({ page }) => {
    await openBuy(page, '/buy?kiosk=true');
    const crumb = page.locator('nav[aria-label="Breadcrumbs"] a').first();
    await expect(crumb).toHaveAttribute('href', /[?&]kiosk=true/);
    // Kiosk mode stays on for the session: the shell keeps it in the address as well.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).click();
    await expect(page).toHaveURL(/\/pricing\?kiosk=true$/);
  });

  test('enableDime and deeplinkOnSuccess are kept when the currency changes', async ({ page }) => {
    await openBuy(page, '/buy?enableDime=true&deeplinkOnSuccess=hangar%3A%2F%2Fdone');
    await total(page, '$199.99');
    await page.getByLabel('Currency', { exact: true }).selectOption('EUR');
    await expect(page).toHaveURL(/[?&]currency=EUR/);
    await expect(page).toHaveURL(/[?&]enableDime=true/);
    await expect(page).toHaveURL(/[?&]deeplinkOnSuccess=hangar%3A%2F%2Fdone/);
    await expect(page.getByTestId('invoice-total')).toHaveText(/^€/);
  });
});

test.describe('/buy default currency', () => {
  test('without a currency in the address the currency cookie decides (storefront default)', async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: 'ff_currency_choice', value: 'EUR', url: baseURL! }]);
    await openBuy(page);
    await expect(page.getByTestId('invoice-total')).toHaveText(/^€/);
    await expect(page.getByLabel('Currency', { exact: true })).toHaveValue('EUR');
  });
});

test('the notification banner shows the notice of the runtime config and slides closed', async ({ page }) => {
  const notes = (await (await page.request.get('/config.json')).json()).notices as Record<string, string>;
  await openBuy(page);
  const banner = page.getByRole('status').filter({ hasText: notes.buy! });
  await expect(banner).toBeVisible();
  await banner.getByRole('button', { name: 'Close notification' }).click();
  await expect(banner).toHaveCount(0);
});
