import { expect, test } from '@playwright/test';
import { expectShell, keepScreenshot } from '../support/helpers';

test('/pricing compares the three individual plans with a sticky header', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 420 });
  await page.goto('/pricing');
  await expectShell(page);
  const table = page.getByTestId('comparison');
  await expect(table).toBeVisible();
  const heads = table.locator('thead th[data-plan]');
  await expect(heads).toHaveCount(3);
  await expect(heads.nth(0)).toContainText('Starter');
  await expect(heads.nth(1)).toContainText('Essential');
  await expect(heads.nth(1)).toContainText('$199.99/yr');
  await expect(heads.nth(2)).toContainText('Premium');
  await keepScreenshot(page, 'pricing');

  // Sticky: after scrolling past the top of the table the header is still at the top of the viewport.
  expect(await heads.first().evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
  await table.locator('tbody tr').last().scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, 2000);
  const tableBox = await table.boundingBox();
  const headBox = await heads.first().boundingBox();
  expect(tableBox && tableBox.y).toBeLessThan(0);
  expect(headBox && Math.round(headBox.y)).toBeGreaterThanOrEqual(0);
  expect(headBox && headBox.y).toBeLessThan(5);
  await page.screenshot({ path: test.info().outputPath('pricing-scrolled.png') });
});

test('a Buy link on /pricing opens the buy page with that plan', async ({ page }) => {
  await page.goto('/pricing');
  await page.getByRole('link', { name: 'Buy Premium' }).click();
  await expect(page).toHaveURL(/\/buy\?addOns=performance/);
  await expect(page.getByRole('radio', { name: /^Premium/ })).toBeChecked();
});
