import { readFile } from 'node:fs/promises';
import { test } from '@playwright/test';
import { choosePlan, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 31 item 3: the e-mailed receipt link said 'no such receipt' in any browser but the
// one that paid. It now carries a signed, expiring token: a guest opens it in a fresh
// browser (no cookie, no session) and downloads the PDF.
test('a guest opens the e-mailed receipt link in a fresh browser and downloads the PDF', async ({ page, browser }) => {
  const email = freshEmail('papers');
  await openBuy(page, '/buy?currency=USD');
  await choosePlan(page, /^Premium/);
  await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
  await fillCard(page, '4111111111111111');
  await purchase(page);
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
  const invoiceId = new URL(page.url()).searchParams.get('invoiceId') ?? '';

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
