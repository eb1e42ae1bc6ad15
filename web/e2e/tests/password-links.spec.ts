import { test, type Page } from '@playwright/test';
import { expectAccessible, keepScreenshot } from '../support/helpers';
import { createAccount, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 28 items 1 and 2 against the real stack and the dev mail sink (/-/mail): a buyer
// whose account checkout created chooses a password from the welcome e-mail and can then
// log out and in; "Forgot password?" from the login modal, end to end, the link single use.

interface Mail {
  subject: string;
  text: string;
}

/** Waits for the newest mail to `to` whose subject contains `subject`. */
async function mailTo(page: Page, to: string, subject: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/-/mail?to=${encodeURIComponent(to)}`);
        const mails = ((await res.json()) as { mails?: Mail[] }).mails ?? [];
        found = mails.find((m) => m.subject.includes(subject));
        return Boolean(found);
      },
      { message: `a mail "${subject}" to ${to}`, timeout: 60_000 },
    )
    .toBe(true);
  return found!;
}

/** The set-password link of a mail, as a path on this store (the mail names the dev base URL). */
function linkOf(mail: Mail): string {
  const m = mail.text.match(/\/account\/set-password#token=[A-Za-z0-9_-]+(?:&welcome=1)?/);
  expect(m, `a set-password link in:\n${mail.text}`).toBeTruthy();
  return m![0];
}

async function xsrf(page: Page): Promise<string> {
  const state = await page.context().storageState();
  return state.cookies.find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
}

async function logout(page: Page): Promise<void> {
  const r = await page.request.post('/pricing/api/logout', { headers: { 'X-XSRF-TOKEN': await xsrf(page) }, data: {} });
  expect(r.ok()).toBeTruthy();
  expect((await (await page.request.get('/buy/api/me')).json()).loggedIn).toBe(false);
}

async function loginThroughAccountDialog(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/account');
  const dialog = page.getByTestId('login-modal');
  await dialog.getByLabel('Email Address').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'LOGIN' }).click();
  await expect(page.getByTestId('account-user')).toHaveText(email);
}

/** The page fits the phone: nothing wider than the viewport. */
async function expectNoOverflow(page: Page, label: string): Promise<void> {
  const { scrollWidth, width } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scrollWidth, `${label} is wider than the phone`).toBeLessThanOrEqual(width);
}

test.describe('password links', () => {
  test.setTimeout(180_000);

  test('a buyer created at checkout follows the welcome link, sets a password, logs out and logs in', async ({ page }) => {
    const email = freshEmail('welcome');
    await openBuy(page);
    await page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first().fill(email);
    await fillCard(page, '4111111111111111', { zip: '97201' });
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });

    const welcome = await mailTo(page, email, 'Welcome to Hangar');
    expect(welcome.subject).toContain('choose your password');
    const link = linkOf(welcome);
    expect(link).toContain('welcome=1');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Choose your password' })).toBeVisible();
    // The token leaves the address bar once read.
    await expect.poll(() => new URL(page.url()).hash).toBe('');
    await expect(page.getByTestId('password-policy')).toContainText('at least 8 characters');
    await expectAccessible(page, '/account/set-password');
    await expectNoOverflow(page, '/account/set-password');

    await page.getByLabel('New password', { exact: true }).fill('blue skies over the hangar');
    await page.getByLabel('Confirm password', { exact: true }).fill('blue skies over the hangars');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await expect(page.getByLabel('Confirm password', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    await page.getByLabel('New password', { exact: true }).fill('password123');
    await page.getByLabel('Confirm password', { exact: true }).fill('password123');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText(/too common or has appeared in a data breach/)).toBeVisible();

    await page.getByLabel('New password', { exact: true }).fill('blue skies over the hangar');
    await page.getByLabel('Confirm password', { exact: true }).fill('blue skies over the hangar');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByTestId('password-user')).toHaveText(email);
    await keepScreenshot(page, 'set-password-done-390');
    expect((await (await page.request.get('/buy/api/me')).json()).loggedIn).toBe(true);

    await logout(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    await loginThroughAccountDialog(page, email, 'blue skies over the hangar');
  });

  test('forgot password from the login modal: same answer for anyone, a single-use link, the new password works', async ({ page }) => {
    const email = freshEmail('forgot');
    await createAccount(page.request, email);
    await logout(page);

    // The buy page's login pane offers it too.
    await openBuy(page);
    await expect(page.getByRole('form', { name: 'LOGIN TO EXISTING ACCOUNT' }).getByRole('link', { name: 'Forgot password?' })).toBeVisible();

    await page.goto('/account');
    const dialog = page.getByTestId('login-modal');
    await dialog.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/account\/forgot-password$/);
    await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
    await expectAccessible(page, '/account/forgot-password');
    await page.getByLabel('Email Address').fill(email);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    const answer = await page.getByTestId('forgot-sent').textContent();
    expect(answer).toContain('If an account exists for that email address');

    // An unknown address gets the very same answer (and no mail).
    const unknown = freshEmail('nobody');
    const r = await page.request.post('/account/api/password/forgot', { headers: { 'X-XSRF-TOKEN': await xsrf(page) }, data: { email: unknown } });
    expect(r.status()).toBe(200);
    expect((await r.json()).message).toBe(answer);

    const link = linkOf(await mailTo(page, email, 'Reset your Hangar password'));
    expect(link).not.toContain('welcome=1');
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await page.getByLabel('Confirm password', { exact: true }).fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByTestId('password-user')).toHaveText(email);
    await mailTo(page, email, 'password was changed');

    // The link works once. (Opened afresh, as from the mail: a fragment-only change of the
    // page's own URL would not load the page again.)
    await logout(page);
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('another fine passphrase');
    await page.getByLabel('Confirm password', { exact: true }).fill('another fine passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByRole('alert')).toContainText('This link has expired or has already been used');
    expect((await (await page.request.get('/buy/api/me')).json()).loggedIn).toBe(false);
    expect((await (await page.request.get(`/-/mail?to=${encodeURIComponent(unknown)}`)).json()).mails ?? []).toEqual([]);

    await loginThroughAccountDialog(page, email, 'a brand new passphrase');
  });
});
