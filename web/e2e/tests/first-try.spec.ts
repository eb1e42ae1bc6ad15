import { test, type Page } from '@playwright/test';
import { expectAccessible } from '../support/helpers';
import { choosePlan, createAccount, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 45: a checkout a buyer trusts at the first try. What the buyer types is what the buyer
// gets; links from a mail work in a browser that never visited the store; every /pricing
// "Buy" opens a cart that can be bought.

interface Mail {
  subject: string;
  text: string;
}

async function mailTo(page: Page, to: string, subject: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/-/mail?to=${encodeURIComponent(to)}`);
        found = (((await res.json()) as { mails?: Mail[] }).mails ?? []).find((m) => m.subject.includes(subject));
        return Boolean(found);
      },
      { message: `a mail "${subject}" to ${to}`, timeout: 60_000 },
    )
    .toBe(true);
  return found!;
}

function setPasswordLink(mail: Mail): string {
  const m = mail.text.match(/\/account\/set-password#token=[A-Za-z0-9_-]+(?:&welcome=1)?/);
  expect(m, `a set-password link in:\n${mail.text}`).toBeTruthy();
  return m![0];
}

test.describe('numbers the buyer types', () => {
  test.setTimeout(180_000);
  test('the licence field can be emptied and typed again: Backspace then 8 is 8 licences, not 28', async ({ page }) => {
    await openBuy(page);
    await choosePlan(page, /^Business Pro/);
    const field = page.getByRole('textbox', { name: 'Number of licenses', exact: true });
    const invoice = page.getByTestId('invoice');
    await expect(field).toHaveValue('2');
    await expect(invoice).toContainText('× 2');
    await field.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await expect(field).toHaveValue('');
    await page.keyboard.type('8');
    await expect(field).toHaveValue('8');
    await expect(invoice).toContainText('× 8');
    await expect(invoice).not.toContainText('× 28');

    // A new cart has no licence count to step from: nothing to confirm (a renewal's step up
    // is asked for: Quantity.test.tsx).
    await expect(page.getByTestId('quantity-confirm')).toHaveCount(0);
    await expectAccessible(page, '/buy: licence field typed again');
  });

  test('a gift amount typed with a comma is refused as not whole, never read as $255', async ({ page }) => {
    await page.goto('/gift/40');
    const field = page.getByRole('textbox', { name: /Custom amount/ });
    await field.fill('25,5');
    await expect(field).toHaveValue('25,5');
    await expect(page.getByTestId('gift-certificate')).toContainText('Gift certificate amounts must be whole numbers.');
    await expect(page.getByText('$255')).toHaveCount(0);
  });
});

test.describe('links from a mail, in a browser that never visited the store', () => {
  test.setTimeout(180_000);

  test('the forgot-password page sends the link on the first press', async ({ browser, page }) => {
    const email = freshEmail('forgot-fresh');
    await createAccount(page.request, email);
    const fresh = await browser.newContext();
    try {
      const p = await fresh.newPage();
      await p.goto('/account/forgot-password');
      await p.getByLabel('Email Address').fill(email);
      await p.getByRole('button', { name: 'Send me a link' }).click();
      await expect(p.getByTestId('forgot-sent')).toContainText('If an account exists for that email address');
      await expect(p.getByText(/XSRF/)).toHaveCount(0);
    } finally {
      await fresh.close();
    }
    await mailTo(page, email, 'Reset your Hangar password');
  });

  test("a guest buyer's welcome link sets the password on the first press", async ({ browser, page }) => {
    const email = freshEmail('welcome-fresh');
    await openBuy(page);
    await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
    await fillCard(page, '4111111111111111', { zip: '97201' });
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    const link = setPasswordLink(await mailTo(page, email, 'Welcome to Hangar'));

    const fresh = await browser.newContext();
    try {
      const p = await fresh.newPage();
      await p.goto(link);
      await expect(p.getByRole('heading', { name: 'Choose your password' })).toBeVisible();
      await p.getByLabel('New password', { exact: true }).fill('blue skies over the hangar');
      await p.getByLabel('Confirm password', { exact: true }).fill('blue skies over the hangar');
      await p.getByRole('button', { name: 'Set password' }).click();
      await expect(p.getByTestId('password-user')).toHaveText(email);
    } finally {
      await fresh.close();
    }
  });
});

test.describe('complete carts from anywhere', () => {
  test.setTimeout(120_000);

  test('every /pricing "Buy" opens a cart with a region and no error', async ({ page }) => {
    await page.goto('/pricing');
    const buys = page.getByRole('link', { name: /^Buy / });
    await expect(buys.first()).toBeVisible();
    const hrefs = await buys.evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.length).toBeGreaterThan(2);
    for (const href of new Set(hrefs)) {
      await openBuy(page, href);
      const regions = page.locator('#section-regions');
      if ((await regions.count()) > 0) await expect(regions.getByRole('checkbox', { checked: true }).or(regions.getByRole('radio', { checked: true })).first(), href).toBeVisible();
      await expect(page.getByText('No region(s) selected.'), href).toHaveCount(0);
      await expect(page.getByTestId('invoice-total'), href).not.toHaveText('$0.00');
    }
  });

  test('a preview error is shown in its section as soon as the preview answers, before Pay', async ({ page }) => {
    // A cart whose currency has no default region is not buyable as named: say so at once.
    await page.route('**/buy/api/invoice/preview', async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      await route.fulfill({ response: res, json: { ...body, errors: [...(body.errors ?? []), 'No region(s) selected.'] } });
    });
    await openBuy(page, '/buy?addOns=performance&currency=USD');
    await expect(page.getByTestId('section-errors-regions')).toHaveText('No region(s) selected.');
    await expect(page.getByTestId('errors')).toContainText('No region(s) selected.');
  });
});

test.describe('what the buyer authorises, at Pay', () => {
  test.setTimeout(180_000);
  test('/buy names the renewal (amount, period, date, how to cancel), the terms, privacy and refund policies, and the cards taken', async ({ page }) => {
    await openBuy(page);
    const invoice = page.getByTestId('invoice');
    const renewal = invoice.getByTestId('renewal-authorisation');
    await expect(renewal).toContainText(/authorise us to charge \$[\d,]+\.\d\d to this payment method every year, from \d\d-\d\d-\d{4}, until you cancel/);
    await expect(renewal).toContainText('turning off automatic renewal');
    await expect(renewal.getByRole('link', { name: 'account page' })).toHaveAttribute('href', '/account');
    const terms = invoice.getByTestId('pay-terms');
    for (const name of ['terms of sale', 'privacy policy', 'refund policy']) await expect(terms.getByRole('link', { name })).toHaveAttribute('href', /^(https:\/\/|\/)/);
    // The pay button carries the total the sentences refer to.
    const total = (await page.getByTestId('invoice-total').textContent())!;
    await expect(page.getByRole('button', { name: /^Pay\b/ })).toHaveText(`Pay ${total}`);
    await expect(terms).toContainText(`By pressing Pay ${total} you agree`);
    const brands = page.getByTestId('payment').getByTestId('card-brands');
    for (const name of ['Visa', 'Mastercard', 'American Express', 'Discover']) await expect(brands.getByRole('img', { name })).toBeVisible();
    await expectAccessible(page, '/buy: authorisation at Pay');
  });

  test('on a phone /gift shows the total on its button, with the terms beside it', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/gift/370');
    const button = page.getByRole('button', { name: /^Buy Gift Certificate/ });
    await expect(button).toContainText(/\$370\b/);
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport();
    await expect(page.getByTestId('pay-terms').getByRole('link', { name: 'refund policy' })).toBeVisible();
    await expect(page.getByTestId('card-brands')).toBeVisible();
    await expectAccessible(page, '/gift at 390 px: total on the button');
  });
});
