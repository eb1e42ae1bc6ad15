import { expect, test } from '@playwright/test';
import { CARD_ADMIN, login } from '../support/store';
import { expectNoSidewaysScroll } from '../support/helpers';

// 390 px phones (spec 001 §9): every page fits the width, with no sideways scrolling.
// The marketing pages, sales mode and the eligibility forms are checked in marketing.spec.ts.
const PAGES: Array<{ path: string; ready: string; staff?: boolean }> = [
  { path: '/buy', ready: '[data-testid="invoice-total"]' },
  { path: '/buy?currency=EUR', ready: '[data-testid="invoice-total"]' },
  { path: '/buy/business_pro/5', ready: '[data-testid="invoice-total"]' },
  { path: '/buy/success?invoiceId=unknown', ready: '[data-remote="buy"]' },
  { path: '/gift', ready: '[data-remote="gift"] h1' },
  { path: '/product/cart/e2e-cart', ready: '[data-remote="oneoff"] h1' },
  { path: '/product/cart-create', ready: '[data-remote="oneoff"] h1', staff: true },
  { path: '/account/allocation', ready: '[data-remote="allocation"] h1' },
  { path: '/account', ready: '[data-remote="account"] h1', staff: true },
];

test.describe('390 px phone: no horizontal overflow', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  for (const p of PAGES) {
    test(p.path, async ({ page }) => {
      // The page CSP admits no inline style: a violation would leave the page unstyled.
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      if (p.staff) await login(page, CARD_ADMIN);
      await page.goto(p.path);
      await expect(page.locator(p.ready).first()).toBeVisible();
      await expectNoSidewaysScroll(page, p.path);
      expect(refused, 'CSP violations').toEqual([]);
    });
  }
});
