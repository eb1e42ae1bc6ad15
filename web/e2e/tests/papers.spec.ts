import { readFile } from 'node:fs/promises';
import { test } from '@playwright/test';
import { type Page } from '@playwright/test';
import { choosePlan, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 31 item 3: the e-mailed receipt link said 'no such receipt' in any browser but the
// one that paid. It now carries a signed, expiring token: a guest opens it in a fresh
// browser (no cookie, no session) and downloads the PDF.
/** The receipt link of the order e-mail sent to this address (the dev mail sink). */
async function mailedLink(page: Page, email: string): Promise<string> {
  let link = '';
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/-/mail?to=${encodeURIComponent(email)}`);
        const mails = ((await res.json()) as { mails?: Array<{ subject: string; text: string }> }).mails ?? [];
        link = mails.map((m) => m.text.match(/\/buy\/api\/receipt\/[0-9a-f-]+\/open\?token=[A-Za-z0-9._%-]+/)?.[0] ?? '').find(Boolean) ?? '';
        return link;
      },
      { message: `a receipt mail to ${email} with a token link`, timeout: 60_000 },
    )
    .not.toBe('');
  return link;
}

test('a guest opens the e-mailed receipt link in a fresh browser and downloads the PDF', async ({ page, browser }) => {
  const email = freshEmail('papers');
  await openBuy(page, '/buy?currency=USD');
  await choosePlan(page, /^Premium/);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
  await fillCard(page, '4111111111111111');
  await purchase(page);
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  const invoiceId = new URL(page.url()).searchParams.get('invoiceId') ?? '';
  const link = await mailedLink(page, email);

  const fresh = await browser.newContext();
  try {
    const other = await fresh.newPage();
    await other.goto(new URL(link, page.url()).href);
    await expect(other).toHaveURL(new RegExp(`/buy/success\\?invoiceId=${invoiceId}$`));
    await expect(other.getByTestId('receipt-total')).toBeVisible();
    const [download] = await Promise.all([other.waitForEvent('download'), other.getByTestId('receipt-pdf').click()]);
    const pdf = await readFile(await download.path());
    expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
    expect(pdf.toString('latin1')).toContain('VAT number:');
  } finally {
    await fresh.close();
  }
});

// Issue 31 item 3 for an EU business guest: 'Print invoice' in another browser saved the
// billing contact through the account's route (403, then a reload with prompt=login) and
// nothing printed. Through the e-mailed link's token the contact is saved, the invoice
// prints without the store's chrome, and its PDF names the seller, the invoice number and
// date (MM-dd-yyyy, UTC), the contact, the VAT ID and the reverse-charge note.
test('an EU guest prints the invoice from the e-mailed link in a fresh browser: contact saved, seller and VAT details on paper and PDF', async ({ page, browser }) => {
  test.setTimeout(180_000);
  const email = freshEmail('papers-eu');
  await openBuy(page, '/buy?currency=EUR');
  await choosePlan(page, /^Premium/);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
  await fillCard(page, '5555555555554444', { zip: '10115', country: 'DE' });
  await page.getByLabel('VAT ID (business identification number)').fill('DE123456789');
  await expect(page.getByTestId('invoice')).toContainText('Reverse charge');
  await page.getByRole('checkbox', { name: /consent to the processing of my personal data/ }).check();
  await purchase(page);
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  const link = await mailedLink(page, email);

  const fresh = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '193.99.144.80' } });
  try {
    const other = await fresh.newPage();
    await other.addInitScript(() => {
      (window as unknown as { __printed: number }).__printed = 0;
      window.print = () => void ((window as unknown as { __printed: number }).__printed += 1);
    });
    await other.goto(new URL(link, page.url()).href);
    await expect(other.getByTestId('receipt-total')).toBeVisible();
    await other.getByRole('button', { name: 'Print invoice' }).click();
    const modal = other.getByTestId('billing-contact-modal');
    await modal.getByLabel('Name', { exact: true }).fill('Luft GmbH');
    await modal.getByLabel('Address', { exact: true }).fill('Hauptstrasse 1');
    await modal.getByLabel('City').fill('Berlin');
    await modal.getByLabel('Postal code').fill('10115');
    await modal.getByLabel('Country').selectOption('DE');
    const saved = other.waitForResponse((r) => r.request().method() === 'POST' && /\/buy\/api\/receipt\/[^/]+\/contact$/.test(new URL(r.url()).pathname));
    await modal.getByRole('button', { name: 'Save and print invoice' }).click();
    expect((await saved).status()).toBe(200);
    await expect.poll(() => other.evaluate(() => (window as unknown as { __printed: number }).__printed)).toBe(1);
    expect(new URL(other.url()).searchParams.get('prompt')).toBeNull();

    // On paper: the seller, the contact and the note; no cookie banner, navigation or footer.
    await other.emulateMedia({ media: 'print' });
    const receipt = other.getByTestId('receipt');
    await expect(other.getByTestId('receipt-seller')).toContainText('VAT number: ');
    await expect(receipt).toContainText('Luft GmbH');
    await expect(receipt).toContainText('DE123456789');
    await expect(receipt).toContainText('Reverse charge');
    await expect(receipt).toContainText(/\d\d-\d\d-\d{4} \d\d:\d\d UTC/);
    await expect(other.getByTestId('cookie-banner')).toBeHidden();
    await expect(other.getByRole('navigation', { name: 'Main' })).toBeHidden();
    await other.emulateMedia({ media: 'screen' });

    const [download] = await Promise.all([other.waitForEvent('download'), other.getByTestId('receipt-pdf').click()]);
    const pdf = (await readFile(await download.path())).toString('latin1');
    expect(pdf.startsWith('%PDF')).toBe(true);
    for (const want of ['VAT number:', 'Invoice number:', 'Luft GmbH', 'VAT ID: DE123456789', 'Reverse charge']) expect(pdf, want).toContain(want);
    expect(pdf).toMatch(/Date: \d\d-\d\d-\d{4} \d\d:\d\d UTC/);
  } finally {
    await fresh.close();
  }
});
