import { expect, test } from '@playwright/test';
import { uniqueEmail } from '../support/store';
import { errorsBox, fillCard, purchase } from '../support/buy';

interface Mail {
  to: string;
  code: string;
}

test.describe('military eligibility', () => {
  test('a military e-mail gets a code by mail and lands on the military buy page', async ({ page, request }) => {
    const email = uniqueEmail('e2e-mil', 'army.mil');
    await page.goto('/buy/military');
    await expect(page.getByRole('heading', { level: 1, name: 'Military Plans' })).toBeVisible();

    const field = page.getByLabel('Military e-mail address');
    await field.fill('not-an-address');
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await expect(page.getByRole('alert')).toHaveText('Email address is invalid, please try again.');

    await field.fill(email);
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await expect(page.getByText(`We sent a verification code to ${email}`)).toBeVisible();

    // The code is delivered as an event and captured by the dev mailbox.
    let code = '';
    await expect
      .poll(async () => {
        const res = await request.get(`/-/mail?to=${encodeURIComponent(email)}`);
        const mails = ((await res.json()) as { mails: Mail[] }).mails;
        code = mails[0]?.code ?? '';
        return code;
      })
      .toMatch(/^\d{6}$/);

    const codeField = page.getByLabel('Verification code');
    await codeField.fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify code' }).click();
    await expect(page.getByRole('alert')).toHaveText('There was an error with your verification request, please try again.');

    await codeField.fill(code);
    await page.getByRole('button', { name: 'Verify code' }).click();
    // The invoice URL identity answers: the military buy page for this address.
    await expect.poll(() => new URL(page.url()).searchParams.get('email')).toBe(email);
    expect(new URL(page.url()).pathname).toBe('/buy/military');
  });

  test('a buyer who has not proven eligibility is refused a military plan and pointed to the eligibility page', async ({ page }) => {
    test.setTimeout(120_000);
    const email = uniqueEmail('e2e-civ-buy', 'example.com');
    await page.goto(`/buy/military?email=${encodeURIComponent(email)}`);
    await expect(page.getByTestId('invoice-total')).toBeVisible();
    await fillCard(page, '4111111111111111');
    await purchase(page);
    await expect(errorsBox(page)).toContainText('sold only to verified military customers');
    await expect(page.getByTestId('eligibility-link')).toHaveAttribute('href', '/buy/military');
    expect(new URL(page.url()).pathname).toBe('/buy/military');
  });

  test('an address that does not qualify is told so', async ({ page }) => {
    await page.goto('/buy/military_intl');
    await expect(page.getByRole('heading', { level: 1, name: 'International Military Plans' })).toBeVisible();
    await page.getByLabel('Military e-mail address').fill(uniqueEmail('e2e-civ', 'example.com'));
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await expect(page.getByTestId('not-eligible')).toContainText('qualified military e-mail address');
  });
});
