import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectAccessible, keepScreenshot } from '../support/helpers';
import { login } from '../support/store';
import * as buy from '../support/buy';

// Issue 45 items 6 and 7 against the real stack: the invoice's columns sum on screen with an
// account balance (the balance is paid after tax and listed there, not above the subtotal),
// and each purchase ends with its own words: the gift's success page says where the code
// went, and /buy/success opened without an order thanks nobody.

/** "$1,234.56", "-$25", "CA$10" as cents. */
function cents(text: string): number {
  const t = text.replace(/[^\d.-]/g, '');
  const [whole = '0', frac = ''] = t.replace('-', '').split('.');
  const v = Number(whole) * 100 + Number((frac + '00').slice(0, 2));
  return text.trim().startsWith('-') ? -v : v;
}

async function amounts(rows: Locator): Promise<number[]> {
  return (await rows.locator('td').allTextContents()).map(cents);
}

async function mails(page: Page, to: string): Promise<{ subject: string; text: string }[]> {
  const res = await page.request.get(`/-/mail?to=${encodeURIComponent(to)}`);
  expect(res.ok()).toBeTruthy();
  return ((await res.json()) as { mails: { subject: string; text: string }[] }).mails ?? [];
}

test('the invoice sums on screen with an account balance: the balance is paid after tax', async ({ page }) => {
  test.setTimeout(300_000); // a login, two previews and axe on a shared, busy machine
  // The seeded pilot has $25 of account balance (checkout's dev seed) and a Premium plan.
  await login(page, 'pilot@demo.hangar.test');
  await buy.openBuy(page, '/buy?currency=USD');
  await buy.choosePlan(page, /^Essential/);
  const invoice = page.getByTestId('invoice');
  const balance = invoice.locator('tr[data-type="ACCOUNT_BALANCE"]');
  await expect(balance).toHaveCount(1);
  await expect(balance.getByRole('rowheader')).toContainText('Paid from account balance');
  // The page's banner says the same: the balance pays after tax (it said 'after purchase').
  await expect(page.getByRole('status').filter({ hasText: 'Plans are billed yearly' })).toContainText('pays the total after tax');
  await expect(invoice).not.toHaveAttribute('aria-busy', 'true');

  const subtotal = cents((await invoice.getByTestId('invoice-subtotal').textContent()) ?? '');
  const tax = cents((await invoice.getByTestId('invoice-tax').textContent()) ?? '');
  const total = cents((await invoice.getByTestId('invoice-total').textContent()) ?? '');
  const before = await amounts(invoice.locator('tbody tr'));
  const after = await amounts(invoice.locator('tfoot tr[data-post-tax]'));
  // The lines above the subtotal are the subtotal; subtotal, tax and what paid after tax
  // are the total: every number on screen adds up as printed.
  expect(before.reduce((a, b) => a + b, 0), `lines ${before.join(' + ')}`).toBe(subtotal);
  expect(after.length).toBeGreaterThan(0);
  expect(subtotal + tax + after.reduce((a, b) => a + b, 0)).toBe(total);
  // The balance row is below the tax row.
  const rows = await invoice.locator('tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type') ?? tr.querySelector('[data-testid]')?.getAttribute('data-testid') ?? ''));
  expect(rows.indexOf('ACCOUNT_BALANCE')).toBeGreaterThan(rows.indexOf('invoice-tax'));
  await expectAccessible(page, '/buy (pilot with an account balance)');
  await keepScreenshot(page, 'invoice-with-balance');
});

test('the gift success page says the code went to the recipient, and the receipt mail says what comes next', async ({ page }) => {
  test.setTimeout(300_000); // a purchase, axe and a mail on a shared, busy machine
  const buyer = buy.freshEmail('gift-end');
  const friend = buy.freshEmail('gift-friend');
  await page.goto('/gift');
  await expect(page.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeVisible();
  await page.getByLabel('Email Address').fill(buyer);
  await page.getByLabel('Recipient e-mail (optional)').fill(friend);
  await page.getByLabel('Cardholder name').fill('Amelia Earhart');
  await page.getByLabel('ZIP / Postal code').fill('94105');
  await page.getByLabel('Country').selectOption('US');
  const card = page.frameLocator('[data-testid="hosted-fields"]');
  await card.locator('#number').fill('4111111111111111');
  await card.locator('#expirationDate').fill('12/2031');
  await card.locator('#cvv').fill('123');
  await buy.buyGift(page);
  await page.waitForURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Thank you for your gift certificate');
  await expect(page.getByTestId('gift-sent-to')).toContainText(`went by e-mail to ${friend}`);
  await expect(page.getByTestId('gift-sent-to')).toContainText(`A copy went to ${buyer}`);
  // Nothing of a subscription's ending.
  await expect(page.getByText(/your plan is ready/)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Manage your subscription' })).toHaveCount(0);
  await expectAccessible(page, '/buy/success (gift)');
  await keepScreenshot(page, 'gift-success');

  await expect
    .poll(async () => (await mails(page, buyer)).find((m) => m.subject.includes('receipt'))?.text ?? '', { timeout: 30_000 })
    .toContain("The certificate's code comes in its own e-mail");
});

test('/buy/success without an order thanks nobody and points to the account', async ({ page }) => {
  test.setTimeout(180_000); // axe on a shared, busy machine
  await page.goto('/buy/success');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your receipts');
  await expect(page.getByText(/Thank you/)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Go to your account' })).toHaveAttribute('href', '/account');
  await expectAccessible(page, '/buy/success (no order)');
});
