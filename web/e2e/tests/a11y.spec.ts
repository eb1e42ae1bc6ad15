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
  { path: '/account', ready: '[data-testid="login-modal"] h2' },
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

test('the axe check runs under the store CSP and finds a planted violation', async ({ page }) => {
  await page.goto('/buy');
  await expect(page.locator('#section-plans input[type=radio]').first()).toBeVisible();
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.setAttribute('data-testid', 'planted');
    document.querySelector('main')?.appendChild(b);
  });
  await expect(expectAccessible(page, 'planted')).rejects.toThrow(/button-name/);
});
