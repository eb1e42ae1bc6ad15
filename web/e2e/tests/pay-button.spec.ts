import { test } from '@playwright/test';
import { expect, fillBilling, fillCard, freshEmail, openBuy, purchase, verifyHuman } from '../support/buy';
import { expectAccessible } from '../support/helpers';

// Issue 31: one 'Pay $X' button. The card frame (payments' fields origin) had a 'Use this
// card' button of its own that tokenised the card, wiped the number and CVV and did nothing
// else. Now the frame has no button; Enter in a card field pays through the page's one Pay
// button, and a decline is explained next to the card.
test.describe.configure({ timeout: 120_000 });

test('the card frame has no button of its own; Enter in the CVV pays with the one Pay button', async ({ page }) => {
  await openBuy(page);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(freshEmail('enter-pays'));
  await fillBilling(page);
  await verifyHuman(page);
  const frame = page.frameLocator('[data-testid="hosted-fields"]');
  await expect(frame.locator('#number')).toBeVisible();
  await expect(frame.getByRole('button'), 'the card frame has a button besides the Pay button').toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Pay \$199\.99$/ })).toHaveCount(1);
  // Typed as a keyboard user types: focus the number, then Tab between the frame's fields.
  await frame.locator('#number').focus();
  await page.keyboard.type('4111111111111111');
  await page.keyboard.press('Tab');
  await page.keyboard.type('12/2031');
  await page.keyboard.press('Tab');
  await page.keyboard.type('123');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
  await expect(page.getByTestId('receipt-total')).toHaveText('$199.99');
});

test('a declined card is explained next to the card in plain words, the card kept as typed', async ({ page }) => {
  await openBuy(page);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(freshEmail('declined-next'));
  await fillCard(page, '4000000000000002');
  await purchase(page);
  const payment = page.getByTestId('payment');
  const cardErrors = payment.getByTestId('card-errors');
  // payments' words, never the processor's (issue 45: "Do Not Honor").
  await expect(cardErrors).toContainText('Your bank declined this card. Use another card, or ask your bank why.');
  await expect(page.locator('body')).not.toContainText('Honor');
  await expect(cardErrors).toContainText('Correct the card details, or enter another card.');
  // Beside the frame, not somewhere else on the page.
  const [f, e] = [await page.getByTestId('hosted-fields').boundingBox(), await cardErrors.boundingBox()];
  expect(e!.y).toBeGreaterThanOrEqual(f!.y + f!.height);
  expect(e!.y - (f!.y + f!.height)).toBeLessThan(80);
  // The card stays typed in the frame (issue 45): the buyer corrects it, not types it all again.
  await expect(page.frameLocator('[data-testid="hosted-fields"]').locator('#number')).not.toHaveValue('');
  await expectAccessible(page, 'buy: decline next to the card');
  // The next attempt starts clean: the explanation goes with the new try.
  await fillCard(page, '4111111111111111');
  await purchase(page);
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
});
