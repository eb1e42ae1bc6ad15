import { expect, test } from '@playwright/test';
import { expectAccessible } from '../support/helpers';

const PAGES = [
  { path: '/', ready: 'main [data-remote="marketing"] h1' },
  { path: '/pricing', ready: '[data-testid="comparison"]' },
  { path: '/buy', ready: '#section-plans input[type=radio]' },
  { path: '/buy?currency=EUR', ready: '#section-plans input[type=radio]' },
  { path: '/gift', ready: '[data-remote="gift"] h1' },
  { path: '/product/cart/e2e-cart', ready: '[data-remote="oneoff"] h1' },
  { path: '/account/allocation', ready: '[data-remote="allocation"] h1' },
];

test.describe('no serious or critical accessibility violations (axe-core)', () => {
  for (const p of PAGES) {
    test(p.path, async ({ page }) => {
      await page.goto(p.path);
      await expect(page.locator(p.ready).first()).toBeVisible();
      await expectAccessible(page, p.path);
    });
  }
});
