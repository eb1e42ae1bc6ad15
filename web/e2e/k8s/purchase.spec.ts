import { test } from '@playwright/test';
import { choosePlan, expect, fillCard, freshEmail, openBuy } from '../support/buy';

// Issue 40: the store's pages load through the real node's Ingress controller and a buyer
// pays with the card typed into the hosted fields, framed from the fields host.
test('a buyer pays for a plan through the Ingress of the real node', async ({ page }) => {
  const email = freshEmail('k8s');
  await openBuy(page);
  await choosePlan(page, /^Business Pro/);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
  await fillCard(page, '4111111111111111');
  await page.getByRole('checkbox', { name: /license agreement/ }).check();
  await page.getByRole('checkbox', { name: /terms of use/ }).check();
  // No human verification on this node (reCAPTCHA is unreachable: k8s-values.yaml).
  await page.getByRole('button', { name: /^Pay\b/ }).click();
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  await expect(page.getByTestId('receipt')).toContainText(email);
});
