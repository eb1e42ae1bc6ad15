import { test } from '@playwright/test';
import { CARD_ADMIN, login } from '../support/store';
import { expect, fillBilling, freshEmail, openBuy, presentCardToReader, purchase, step } from '../support/buy';

// The payment tabs other than the hosted card fields: the wallet (PayPal) and the
// card-present reader of sales staff (spec 000 §2 payment, spec 001 §4 card reader).
test.describe('/buy payment methods', () => {
  test.setTimeout(120_000);

  test('a new buyer pays with the PayPal wallet and sees the receipt', async ({ page }) => {
    await openBuy(page);
    const email = freshEmail('wallet');
    await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
    const pay = page.getByTestId('payment');
    await pay.getByRole('tab', { name: 'PayPal' }).click();
    await expect(pay.getByRole('tab', { name: 'PayPal' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('[data-testid="hosted-fields"]')).toHaveCount(0);
    await fillBilling(page);
    await step(page, 'buy: wallet');
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    await expect(page.getByTestId('receipt')).toContainText(email);
    await expect(page.getByTestId('receipt-total')).toHaveText('$199.99');
  });

  test('sales staff take a card on the card reader: the page polls until the card is presented', async ({ page }) => {
    await login(page, CARD_ADMIN);
    await openBuy(page);
    const pay = page.getByTestId('payment');
    await pay.getByRole('radio', { name: 'Use the card reader' }).check();
    await pay.getByLabel('Card reader', { exact: true }).selectOption('RDR-0001');
    // The reader reads the cardholder's name from the card: the page asks for none (issue 45).
    await expect(pay.getByLabel('Cardholder name')).toHaveCount(0);
    await fillBilling(page, { name: null });
    await step(page, 'buy: card reader');
    await purchase(page);
    // The page says what it waits for: the card, on that reader (not only "Processing…").
    await expect(page.getByTestId('waiting-for-card')).toContainText('card reader RDR-0001');
    await expect(page.getByRole('button', { name: 'Waiting for the card on RDR-0001…' })).toBeVisible();
    // Present one to the reader (the dev simulator).
    await presentCardToReader(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    await expect(page.getByTestId('receipt-total')).toBeVisible();
  });
});
