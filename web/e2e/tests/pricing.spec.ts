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
  // Issue 31: it stuck at the top of the viewport, under the site header (sticky as well once
  // scrolled). It stands just below that header, in sight: nothing covers its middle.
  const site = page.getByTestId('marketing-header');
  await expect(site).toHaveClass(/sticky-show/);
  const siteBox = (await site.boundingBox())!;
  expect(Math.round(siteBox.y)).toBe(0);
  const tableBox = (await table.boundingBox())!;
  expect(tableBox.y).toBeLessThan(0);
  await expect.poll(async () => Math.round((await heads.first().boundingBox())!.y)).toBe(Math.round(siteBox.y + siteBox.height));
  const uncovered = await heads.evaluateAll((ths) =>
    ths.map((th) => {
      const r = th.getBoundingClientRect();
      const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return top !== null && th.contains(top);
    }),
  );
  expect(uncovered).toEqual([true, true, true]);
  await page.screenshot({ path: test.info().outputPath('pricing-scrolled.png') });
});

test('a Buy link on /pricing opens the buy page with that plan', async ({ page }) => {
  await page.goto('/pricing');
  await page.getByRole('link', { name: 'Buy Premium' }).click();
  await expect(page).toHaveURL(/\/buy\?addOns=performance/);
  await expect(page.getByRole('radio', { name: /^Premium/ })).toBeChecked();
});
