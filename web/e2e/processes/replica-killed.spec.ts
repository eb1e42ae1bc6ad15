import { test, type Page } from '@playwright/test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { choosePlan, createAccount, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';
import { keepScreenshot } from '../support/helpers';

// Issue 39: the page waits through "being processed" when the checkout replica holding
// its submit really dies. This project runs against scripts/web-e2e.sh's second stack:
// hangar-dev in multi-process mode, two replicas per service, with the chaos run's fault
// points armed through HANGAR_E2E_FAULT_DIR (internal/platform/fault). Arming
// checkout.after-charge makes the first checkout replica that has charged a submit die
// there with SIGKILL, before it writes the order: the charge is captured, the key's claim
// is still that dead replica's. The edge replays the keyed submit on the other replica,
// which answers 409 ORDER_IN_PROGRESS with Retry-After while the dead one's lease runs;
// the page waits and asks again until a retry takes the key over and writes the order
// with the charge payments already made.

const STILL_PROCESSING = 'Still processing your payment…';
const SUBMIT = '/buy/api/invoice/submit';

interface Replica {
  pid: number;
  restarts: number;
}

/** The multi-process stack's checkout replicas (hangar-dev's /-/processes). */
async function checkoutReplicas(page: Page): Promise<Record<string, Replica>> {
  const r = await page.request.get('/-/processes');
  expect(r.ok()).toBe(true);
  const all = (await r.json()) as Record<string, Replica>;
  return Object.fromEntries(Object.entries(all).filter(([name]) => name === 'checkout' || name.startsWith('checkout-')));
}

test('a checkout replica killed inside the submit: the page shows the wait, then the receipt; one order', async ({ page }) => {
  // The wait alone is the dead replica's lease (10 s) and the page's Retry-After cadence; a
  // shared machine under load answers slower (HANGAR_E2E_SLOWDOWN, as the config's limits).
  test.setTimeout(180_000 * Math.max(1, Number(process.env.HANGAR_E2E_SLOWDOWN) || 1));
  const faults = process.env.HANGAR_E2E_FAULT_DIR;
  expect(faults, 'HANGAR_E2E_FAULT_DIR: the stack’s fault directory (scripts/web-e2e.sh sets it)').toBeTruthy();
  const before = await checkoutReplicas(page);
  expect(Object.keys(before)).toHaveLength(2);

  const email = freshEmail('replica-killed');
  await createAccount(page.request, email);
  await openBuy(page);
  await expect(page.getByTestId('signed-in-user')).toHaveText(email);
  await choosePlan(page, /^Premium/);
  await fillCard(page, '4111111111111111');

  const answers: { status: number; key: string }[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === SUBMIT) answers.push({ status: r.status(), key: r.request().headers()['idempotency-key'] ?? '' });
  });
  const armed = join(faults!, 'checkout.after-charge');
  writeFileSync(armed, '');
  await purchase(page);

  const status = page.getByTestId('still-processing');
  await expect(status).toHaveText(STILL_PROCESSING);
  await keepScreenshot(page, 'buy-still-processing-replica-killed');
  // The fault fired: the point was disarmed by the replica that died at it.
  expect(existsSync(armed)).toBe(false);

  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  await expect(page.getByTestId('receipt-total')).toBeVisible();
  const invoiceNumber = (await page.getByTestId('receipt-id').textContent())!.trim();

  // One replica died (and was restarted by the runner); every answer the page saw was the
  // wait (409) or the order (200), all for the one key.
  const after = await checkoutReplicas(page);
  const died = Object.keys(after).filter((name) => after[name]!.restarts > before[name]!.restarts);
  expect(died).toHaveLength(1);
  expect(answers.length).toBeGreaterThanOrEqual(2);
  expect(answers.slice(0, -1).every((a) => a.status === 409)).toBe(true);
  expect(answers.at(-1)!.status).toBe(200);
  expect(new Set(answers.map((a) => a.key)).size).toBe(1);

  // The order was written once: the buyer's history has exactly that invoice.
  await page.goto('/account');
  const rows = page.getByTestId('invoice-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(invoiceNumber);
});
