import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const resultsDir = resolve(webRoot, 'test-results');

/** The catalogue call of the buy and pricing pages. */
export const CATALOG = '**/account/api/subscription/available/add-ons*';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Runs axe-core in the page; fails on serious or critical violations. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  // Through the DevTools protocol, not an inline <script>: the store's CSP refuses inline
  // scripts (as it should), and the tests run under the real CSP.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Runtime.evaluate', { expression: axeSource });
  await cdp.detach();
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
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

/** The shell is there: header, main navigation, main landmark. */
export async function expectShell(page: Page): Promise<void> {
  await expect(page.getByRole('banner')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('main')).toBeVisible();
}

export function planPrice(page: Page, code: string) {
  return page.getByTestId(`price-${code}`);
}
