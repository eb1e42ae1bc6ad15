import { test } from '@playwright/test';
import { choosePlan, expect, fillCard, freshEmail, openBuy } from '../support/buy';

// Issue 40: the store's pages load through the real node's Ingress controller and a buyer
// pays with the card typed into the hosted fields, framed from the fields host, which
// tokenizes it; Pay returns the receipt.
test('a buyer pays for a plan through the Ingress of the real node', async ({ page }) => {
  const email = freshEmail('k8s');
  await openBuy(page);
  expect(new URL(page.url()).host).toBe('store.hangar-ci.ie');
  // One license of a personal plan: no organisation, no login (a plan for more licenses needs both).
  await choosePlan(page, /^Premium/);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
  // Oregon has no sales tax: the receipt is the list price.
  await fillCard(page, '4111111111111111', { zip: '97201' });
  const fields = page.frames().find((f) => f !== page.mainFrame() && new URL(f.url()).host === 'pay.hangar-ci.ie');
  expect(fields, 'the card fields are framed from the fields host').toBeTruthy();
  const tokenized = page.waitForResponse((r) => new URL(r.url()).host === 'pay.hangar-ci.ie' && new URL(r.url()).pathname === '/api/tokenize');
  // No human verification on this node (reCAPTCHA is unreachable: k8s-values.yaml).
  const pay = page.getByRole('button', { name: /^Pay\b/ });
  await expect(pay).toBeEnabled();
  await pay.click();
  const token = await tokenized;
  expect(token.status()).toBe(200);
  expect((await token.json()).nonce).toBeTruthy();
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  await expect(page.getByTestId('receipt-total')).toHaveText('$370.00');
  await expect(page.getByTestId('receipt')).toContainText(email);
});
