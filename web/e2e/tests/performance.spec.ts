import { gzipSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
import { planPrice, resultsDir } from '../support/helpers';

/** Budgets from the issue: initial JS for /buy (shell + buy remote) and LCP on localhost. */
const JS_BUDGET_GZIP = 250 * 1024;
const LCP_BUDGET_MS = 1500;
/** From a click to the updated invoice, p75. */
const CLICK_TO_INVOICE_P75_MS = 100;
/**
 * Timed budgets (LCP, click to invoice) are asserted only by scripts/perf-web.sh
 * (HANGAR_PERF_TIMED=1): on a busy shared machine a timed assertion in `make test`
 * flakes. `make test` still records them and asserts the byte budget.
 */
const TIMED = process.env.HANGAR_PERF_TIMED === '1';

interface Sample {
  lcpMs: number;
  lcpElement: string;
  domContentLoadedMs: number;
  files: Array<{ path: string; raw: number; gzip: number }>;
}

/** One cold load of /buy in a fresh browser context (empty HTTP cache). */
async function coldLoad(browser: Browser): Promise<Sample> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = new Map<string, Promise<Buffer>>();
  page.on('response', (res) => {
    const type = res.request().resourceType();
    const url = res.url();
    if (res.ok() && (type === 'script' || url.endsWith('.js') || url.endsWith('.mjs'))) scripts.set(url, res.body());
  });

  await page.goto('/buy', { waitUntil: 'load' });
  await expect(planPrice(page, 'pro_plus')).toHaveText('$199.99/yr');
  await expect(page.getByTestId('invoice-total')).toHaveText('$199.99');
  await page.waitForLoadState('networkidle');

  const lcp = await page.evaluate(
    () =>
      new Promise<{ startTime: number; element: string }>((resolveLcp) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries() as Array<PerformanceEntry & { element?: Element }>;
          const last = entries[entries.length - 1]!;
          const el = last.element;
          resolveLcp({ startTime: last.startTime, element: el ? `${el.tagName.toLowerCase()}.${el.className}` : '' });
        }).observe({ type: 'largest-contentful-paint', buffered: true });
      }),
  );
  const dcl = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd);

  const files: Sample['files'] = [];
  for (const [url, body] of scripts) {
    const buf = await body;
    files.push({ path: new URL(url).pathname, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length });
  }
  files.sort((a, b) => b.gzip - a.gzip);
  await context.close();
  return { lcpMs: Math.round(lcp.startTime), lcpElement: lcp.element, domContentLoadedMs: Math.round(dcl), files };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p75 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.75) - 1]!;

/**
 * Click -> updated invoice, measured in the page: performance.now() at the click's
 * event, and again when the invoice total's text changes (a MutationObserver), so the
 * number covers the preview request, the answer and the render, not Playwright's
 * round trips.
 */
async function clickToInvoice(browser: Browser, rounds: number): Promise<number[]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/buy');
  await expect(page.getByTestId('invoice-total')).toHaveText('$199.99');
  const plans = [
    { name: /^Premium/, total: '$370' },
    { name: /^Essential/, total: '$199.99' },
  ];
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const target = plans[i % 2]!;
    // A plan picked with the pointer collapses the plans to their summary: open them first,
    // before the timer's click listener is armed.
    const toggle = page.locator('#section-plans').getByRole('button', { name: /^\W*Plans/ });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await page.evaluate(() => {
      const w = window as unknown as { __t0?: number; __t1?: number };
      w.__t0 = undefined;
      w.__t1 = undefined;
      document.addEventListener('click', () => (w.__t0 = performance.now()), { once: true, capture: true });
      const el = document.querySelector('[data-testid="invoice-total"]')!;
      const before = el.textContent;
      const mo = new MutationObserver(() => {
        if (el.textContent !== before) {
          w.__t1 = performance.now();
          mo.disconnect();
        }
      });
      mo.observe(el, { characterData: true, childList: true, subtree: true });
    });
    await page.getByRole('radio', { name: target.name }).click();
    await expect(page.getByTestId('invoice-total')).toHaveText(target.total);
    const ms = await page.evaluate(() => {
      const w = window as unknown as { __t0?: number; __t1?: number };
      return w.__t0 !== undefined && w.__t1 !== undefined ? w.__t1 - w.__t0 : NaN;
    });
    if (Number.isFinite(ms)) samples.push(Math.round(ms * 10) / 10);
  }
  await context.close();
  return samples;
}

test('/buy: initial JavaScript within 250 KB gzipped; LCP and click->invoice recorded', async ({ browser, baseURL }) => {
  // Three cold loads and a dozen clicks; a loaded shared machine needs more than the default 30 s.
  test.setTimeout(180_000);
  // Three cold loads; the median LCP is the number (one slow sample on a busy 2-core box is noise).
  const samples: Sample[] = [];
  for (let i = 0; i < 3; i++) samples.push(await coldLoad(browser));

  const files = samples[0]!.files;
  const sum = (fs: Sample['files'], pick: (f: Sample['files'][number]) => number) => fs.reduce((s, f) => s + pick(f), 0);
  const gzip = sum(files, (f) => f.gzip);
  const raw = sum(files, (f) => f.raw);
  const shell = sum(files.filter((f) => !f.path.startsWith('/remotes/')), (f) => f.gzip);
  const buy = sum(files.filter((f) => f.path.startsWith('/remotes/buy/')), (f) => f.gzip);
  const lcpMs = median(samples.map((s) => s.lcpMs));
  const clicks = await clickToInvoice(browser, 12);
  const clickP75 = p75(clicks);

  const result = {
    measuredAt: new Date().toISOString(),
    baseURL,
    page: '/buy',
    initialJs: { files: files.length, rawBytes: raw, gzipBytes: gzip, shellGzipBytes: shell, buyRemoteGzipBytes: buy, budgetGzipBytes: JS_BUDGET_GZIP },
    lcp: { ms: lcpMs, samplesMs: samples.map((s) => s.lcpMs), element: samples[0]!.lcpElement, budgetMs: LCP_BUDGET_MS },
    domContentLoadedMs: median(samples.map((s) => s.domContentLoadedMs)),
    clickToInvoice: { p75Ms: clickP75, samplesMs: clicks, budgetMs: CLICK_TO_INVOICE_P75_MS },
    largestFiles: files.slice(0, 8),
  };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(resolve(resultsDir, 'performance-buy.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `perf /buy: initial JS ${(gzip / 1024).toFixed(1)} KB gzipped (shell ${(shell / 1024).toFixed(1)} + buy ${(buy / 1024).toFixed(1)}; ${files.length} files, ${(raw / 1024).toFixed(1)} KB raw); LCP median ${lcpMs} ms of ${result.lcp.samplesMs.join('/')} (${result.lcp.element}); click->invoice p75 ${clickP75} ms of ${clicks.join('/')}`,
  );

  expect(gzip).toBeLessThanOrEqual(JS_BUDGET_GZIP);
  expect(clicks.length).toBeGreaterThan(6);
  if (TIMED) {
    expect(lcpMs).toBeLessThan(LCP_BUDGET_MS);
    expect(clickP75).toBeLessThan(CLICK_TO_INVOICE_P75_MS);
  }
});
