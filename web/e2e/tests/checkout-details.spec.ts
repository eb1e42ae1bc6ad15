import { test } from '@playwright/test';
import { expectAccessible } from '../support/helpers';
import { choosePlan, errorsBox, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 45's smaller items: what the buyer reads at checkout is for the buyer, and one press
// of Pay, or one typed e-mail, does what the buyer expects.

const PREVIEW = '/buy/api/invoice/preview';

test.describe('checkout details a buyer reads', () => {
  test.setTimeout(180_000);

  test('typing an e-mail asks for a price once per pause, not once per key', async ({ page }) => {
    await openBuy(page);
    const email = freshEmail('debounce');
    const field = page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first();
    await field.click();
    // Every preview asked from the first key on, and the one that prices the whole address.
    let asked = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === PREVIEW) asked++;
    });
    const priced = page.waitForRequest((r) => new URL(r.url()).pathname === PREVIEW && (r.postDataJSON() as { email?: string }).email === email);
    // A quick typist (32 previews for one address before the debounce).
    await field.pressSequentially(email, { delay: 30 });
    await priced;
    await expect(page.getByRole('button', { name: /^Pay/ })).toBeEnabled();
    expect(asked, `${asked} previews while typing ${email.length} characters`).toBeLessThanOrEqual(3);
  });

  test('the first Pay shows every missing field at once: the e-mail and the card too', async ({ page }) => {
    await openBuy(page);
    await page.getByRole('button', { name: /^Pay/ }).click();
    const box = errorsBox(page);
    for (const msg of ['Please enter your email address.', 'Name cannot be blank', 'Postal Code cannot be blank']) {
      await expect(box).toContainText(msg);
    }
    // The card frame's own words for the empty card, in the summary and beside the card.
    await expect(box).toContainText(/Cannot process empty card fields|Credit Card cannot be blank/);
    await expect(page.getByTestId('payment').getByTestId('card-errors')).toBeVisible();
    await expect(page).toHaveURL(/\/buy(\?|$)/);
    await expectAccessible(page, '/buy: every problem at the first Pay');
  });

  test('a security code the bank refuses is said in plain words, the card kept as typed', async ({ page }) => {
    await openBuy(page);
    await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(freshEmail('cvv-plain'));
    await fillCard(page, '4000000000000127');
    await purchase(page);
    const cardErrors = page.getByTestId('payment').getByTestId('card-errors');
    await expect(cardErrors).toContainText('The security code (CVV) does not match this card.');
    await expect(page.locator('body')).not.toContainText(/Gateway|Rejected|Processor|Honor/);
    // The number and expiry stay typed: the buyer corrects the code, not the whole card.
    const frame = page.frameLocator('[data-testid="hosted-fields"]');
    await expect(frame.locator('#number')).not.toHaveValue('');
    await expect(frame.locator('#expirationDate')).toHaveValue('12/2031');
  });

  test("the rules' own notes are not bullets under the invoice", async ({ page }) => {
    // /pricing's "Buy Premium": the rules add the region the cart lacks, and note it (checkout
    // answers no bullet for that note: the region is checked in its section).
    await openBuy(page, '/buy?addOns=performance&currency=USD');
    await expect(page.getByTestId('invoice')).toContainText('Premium');
    await expect(page.getByRole('list', { name: 'Changes made to your selection' })).toHaveCount(0);
    await choosePlan(page, /^Business Pro/);
    await expect(page.getByTestId('invoice')).toContainText('Business Pro');
    await expect(page.getByRole('list', { name: 'Changes made to your selection' })).toHaveCount(0);
  });

  test("the HondaJet bundle's description reads as text, not as markup", async ({ page }) => {
    await page.goto('/buy#/hjopa_bundle');
    await expect(page.getByText(/Two Business Performance licences/).first()).toBeVisible();
    await expect(page.locator('body')).not.toContainText('<strong>');
  });
});
