import { expect, test } from '@playwright/test';
import { expectShell, keepScreenshot, planPrice } from '../support/helpers';

test.describe('/buy against the live catalogue', () => {
  test('shows Starter, Essential and Premium with Essential at $199.99 per year', async ({ page }) => {
    await page.goto('/buy');
    await expectShell(page);
    await expect(page.getByRole('heading', { level: 1, name: 'Your Plan' })).toBeVisible();
    await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
    await expect(page.getByRole('radio', { name: /^Essential/ })).toBeChecked();
    for (const title of ['Starter', 'Essential', 'Premium']) {
      await expect(page.locator('#section-plans').getByText(title, { exact: true })).toBeVisible();
    }
    await expect(page.locator('#section-regions input[type=checkbox]').first()).toBeVisible();
    await expect(page.locator('#section-addOns input[type=checkbox]').first()).toBeVisible();
    await expect(page.getByText('Prices do not include VAT')).toHaveCount(0);
    await keepScreenshot(page, 'buy-usd');
  });

  test('switching to EUR reloads with euro prices and the VAT note', async ({ page }) => {
    await page.goto('/buy');
    await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
    await page.getByLabel('Currency', { exact: true }).selectOption('EUR');
    await expect(page).toHaveURL(/[?&]currency=EUR/);
    await expect(planPrice(page, 'pro_plus')).toHaveText(/^€\d+(\.\d\d)?\/yr$/);
    await expect(page.getByLabel('Currency', { exact: true })).toHaveValue('EUR');
    await expect(page.getByText('Prices do not include VAT').first()).toBeVisible();
    await keepScreenshot(page, 'buy-eur');
  });

  test('GBP shows the VAT note too', async ({ page }) => {
    await page.goto('/buy?currency=GBP');
    await expect(planPrice(page, 'pro_plus')).toHaveText(/^£/);
    await expect(page.getByText('Prices do not include VAT').first()).toBeVisible();
  });

  test('an unknown currency in the URL falls back to USD', async ({ page }) => {
    await page.goto('/buy?currency=XYZ');
    await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
    await expect(page.getByLabel('Currency', { exact: true })).toHaveValue('USD');
  });
});
