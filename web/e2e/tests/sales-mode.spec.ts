import { expect, test } from '@playwright/test';
import { CARD_ADMIN, login } from '../support/store';

test.describe('sales mode', () => {
  test('a credit-card admin enables it: banner and clock on every page, then disables it', async ({ page }) => {
    await login(page, CARD_ADMIN);
    await page.goto('/buy/sales-mode');
    await expect(page.getByRole('heading', { level: 1, name: 'Sales mode' })).toBeVisible();
    const enable = page.getByRole('button', { name: 'Enable' });
    const reader = page.getByLabel('Card reader');
    await expect(reader.locator('option', { hasText: 'RDR-0001' })).toHaveCount(1);
    // Without a chosen reader Enable stays disabled.
    await expect(enable).toBeDisabled();
    await reader.selectOption('RDR-0001');
    await expect(enable).toBeEnabled();
    await enable.click();

    const clock = page.getByTestId('sales-mode-clock');
    await expect(clock).toHaveText(/^2[34]:\d\d:\d\d$/);
    const first = await clock.textContent();
    // Polled every second: the clock moves.
    await expect(clock).not.toHaveText(first!, { timeout: 5000 });
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('hangar.salesMode') ?? 'null'));
    expect(stored.value.readerSerialNumber).toBe('RDR-0001');
    expect(stored.value.endTime - Date.now()).toBeGreaterThan(86_400_000 - 60_000);

    const banner = page.getByTestId('sales-mode-banner');
    await expect(banner).toContainText('Sales mode is on');
    await page.goto('/pricing');
    await expect(banner).toContainText('RDR-0001');
    await expect(page.getByTestId('sales-mode-banner-clock')).toHaveText(/^2[34]:\d\d:\d\d$/);

    await banner.getByRole('link', { name: 'Manage sales mode' }).click();
    await page.getByRole('button', { name: 'Disable' }).click();
    await expect(banner).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Enable' })).toBeVisible();
  });

  test('a visitor sees Enable disabled', async ({ page }) => {
    await page.goto('/buy/sales-mode');
    await expect(page.getByText('Only staff with the credit-card-admin right')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Enable' })).toBeDisabled();
    await expect(page.getByTestId('sales-mode-banner')).toHaveCount(0);
  });

  test('an expired setting is forgotten', async ({ page }) => {
    await page.goto('/pricing');
    await page.evaluate(() =>
      localStorage.setItem('hangar.salesMode', JSON.stringify({ value: { endTime: Date.now() - 1000, readerSerialNumber: 'RDR-0001' }, expiresAt: Date.now() + 1000 })),
    );
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByTestId('sales-mode-banner')).toHaveCount(0);
    expect(await page.evaluate(() => localStorage.getItem('hangar.salesMode'))).toBeNull();
  });

  test('kiosk=true stays in the address while navigating', async ({ page }) => {
    await page.goto('/?kiosk=true');
    const site = page.getByRole('navigation', { name: 'Site' });
    await site.getByRole('button', { name: 'Plans' }).click();
    await site.getByRole('link', { name: 'Compare plans' }).click();
    await expect(page).toHaveURL(/\/pricing\?kiosk=true$/);
    // Off the marketing pages the shell's Main bar takes over, and kiosk mode stays on.
    await site.getByRole('button', { name: 'Plans' }).click();
    await site.getByRole('link', { name: 'Buy a subscription' }).click();
    await expect(page).toHaveURL(/\/buy\?kiosk=true$/);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gift certificates' }).click();
    await expect(page).toHaveURL(/\/gift\?kiosk=true$/);
  });
});
