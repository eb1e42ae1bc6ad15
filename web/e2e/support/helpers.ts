import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

export const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const resultsDir = resolve(webRoot, 'test-results');

/** The catalogue call of the buy and pricing pages. */
export const CATALOG = '**/account/api/subscription/available/add-ons*';

/**
 * Runs axe-core (@axe-core/playwright) on the page and its frames (the hosted card
 * fields included); fails on serious or critical violations. AxeBuilder injects axe
 * through Playwright's evaluate, which the pages' CSP (no inline script) does not
 * govern, so the tests keep running under the real CSP.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');
  expect(bad, `${label}: axe violations\n${report}`).toEqual([]);
}

/** Keeps a named full-page screenshot under web/test-results/screenshots/. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  const dir = resolve(resultsDir, 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: resolve(dir, `${name}.png`), fullPage: true });
}

/**
 * The shell is there: header, one site navigation bar (the shell's Main bar, or on marketing
 * pages the page's own Site bar instead), main landmark.
 */
export async function expectShell(page: Page): Promise<void> {
  await expect(page.getByRole('banner')).toBeVisible();
  await expect(page.getByRole('navigation', { name: /^(Main|Site)$/ })).toHaveCount(1);
  await expect(page.getByRole('navigation', { name: /^(Main|Site)$/ })).toBeVisible();
  await expect(page.getByRole('main')).toBeVisible();
}

export function planPrice(page: Page, code: string) {
  return page.getByTestId(`price-${code}`);
}

/**
 * Fails when the page is wider than its viewport (a phone's sideways scroll), naming the first
 * elements that stick out (fixed ones, e.g. the cookie banner, and hidden ones aside).
 */
export async function expectNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1 && getComputedStyle(el).position !== 'fixed')
      .filter((el) => !el.closest('[hidden], .h-visually-hidden, [class*="visually-hidden"]'))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`);
    return { scrollWidth: document.documentElement.scrollWidth, width, wide };
  });
  expect(overflow.scrollWidth, `${label} is wider than the phone: ${overflow.wide.join(', ')}`).toBeLessThanOrEqual(overflow.width);
}
