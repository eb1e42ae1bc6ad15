import { expect, test } from '@playwright/test';
import { expectAccessible, keepScreenshot } from '../support/helpers';
import { choosePlan, fillCard, freshEmail, openBuy, purchase, step, total } from '../support/buy';

// The whole checkout of spec 000 in Chromium against the real stack: preview, hosted card
// fields (payments), submit (checkout), receipt.
test.describe('checkout on /buy', () => {
  test.setTimeout(120_000);

  test('a new buyer picks Premium and Europe, pays with a test card and sees a receipt of $470.00', async ({ page }) => {
    await openBuy(page);
    await total(page, '$199.99');
    await step(page, 'buy: start');
    await choosePlan(page, /^Premium/);
    await total(page, '$370');
    await page.locator('#section-regions').getByRole('checkbox', { name: /^Europe/ }).check();
    await total(page, '$470');
    const email = freshEmail('new');
    await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
    // Oregon has no sales tax: the receipt is the list price.
    await fillCard(page, '4111111111111111', { zip: '97201' });
    await total(page, '$470');
    await step(page, 'buy: ready to pay');
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    await expect(page.getByTestId('receipt-total')).toHaveText('$470.00');
    await expect(page.getByTestId('receipt')).toContainText('Premium');
    await expect(page.getByTestId('receipt')).toContainText('Europe');
    await expect(page.getByTestId('receipt')).toContainText(email);
    await expectAccessible(page, 'buy: receipt');
    await keepScreenshot(page, 'buy-receipt');
  });
});
