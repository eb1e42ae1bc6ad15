import { test, type Page, type Route } from '@playwright/test';
import { errorsBox, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';
import { keepScreenshot } from '../support/helpers';

// Issue 39: the answers of a submit the page acts on. Checkout's two 409s are made here by
// intercepting the submit (a route fulfilled in the browser) rather than by killing a
// checkout replica or waiting out the reconciler: the page's behaviour is what is tested,
// and the answers are exactly the service's (errs.Body, internal/platform/errs; the
// reasons of services/checkout/internal/order). Every other submit reaches the real stack.
const SUBMIT = '**/buy/api/invoice/submit';
const CLOSED = 'This order could not be completed and you were not charged. Please review your order and submit it again.';
const BUSY = 'This order is being processed. Please wait a moment and check again.';

interface Sent {
  key: string;
  nonce: string;
}

function conflict(route: Route, reason: string, message: string, retryAfter?: string) {
  return route.fulfill({
    status: 409,
    contentType: 'application/json',
    headers: retryAfter ? { 'Retry-After': retryAfter } : {},
    body: JSON.stringify({ code: 'conflict', message, reason, status: 'fail', errors: [message], msg: message }),
  });
}

async function readyToPay(page: Page, tag: string) {
  await openBuy(page);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(freshEmail(tag));
  await fillCard(page, '4111111111111111');
}

function record(sent: Sent[], route: Route) {
  const req = route.request();
  sent.push({ key: req.headers()['idempotency-key'] ?? '', nonce: (req.postDataJSON() as { nonce?: string }).nonce ?? '' });
}

test.describe('submit answers the page acts on', () => {
  test.setTimeout(120_000);

  test('a closed attempt: the next click is a new attempt, with a new key and a new card token', async ({ page }) => {
    const sent: Sent[] = [];
    await page.route(SUBMIT, async (route) => {
      record(sent, route);
      if (sent.length === 1) return conflict(route, 'ATTEMPT_CLOSED', CLOSED);
      return route.continue();
    });
    await readyToPay(page, 'closed');
    await purchase(page);
    await expect(errorsBox(page)).toContainText('could not be completed and you were not charged');
    expect(sent).toHaveLength(1); // not asked again: the key never completes
    await fillCard(page, '4111111111111111');
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    expect(sent).toHaveLength(2);
    expect(sent[1]!.key).not.toBe(sent[0]!.key);
    expect(sent[1]!.nonce).toBeTruthy();
    expect(sent[1]!.nonce).not.toBe(sent[0]!.nonce);
  });

  test('being processed: the page shows the wait and asks again with the same key until the order is there', async ({ page }) => {
    const sent: Sent[] = [];
    let seen!: () => void;
    const statusSeen = new Promise<void>((r) => (seen = r));
    await page.route(SUBMIT, async (route) => {
      record(sent, route);
      if (sent.length === 1) return conflict(route, 'ORDER_IN_PROGRESS', BUSY, '1');
      if (sent.length === 2) {
        // The second answer waits until the test has seen the page's waiting state.
        await statusSeen;
        return conflict(route, 'ORDER_IN_PROGRESS', BUSY, '1');
      }
      return route.continue();
    });
    await readyToPay(page, 'busy');
    await purchase(page);
    const status = page.getByTestId('still-processing');
    await expect(status).toHaveText('Still processing your payment…');
    await expect(status).toHaveAttribute('role', 'status');
    await keepScreenshot(page, 'buy-still-processing');
    seen();
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.key)).size).toBe(1);
    expect(sent.every((s) => s.nonce === sent[0]!.nonce)).toBe(true);
  });
});
