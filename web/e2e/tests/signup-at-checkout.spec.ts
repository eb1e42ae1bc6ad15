import { test } from '@playwright/test';
import { expectAccessible } from '../support/helpers';
import { choosePlan, errorsBox, expect, fillCard, freshEmail, openBuy, purchase } from '../support/buy';

// Issue 31 item 2: a new organization buys several licences in one go. The purchase asks
// for a login ('Please log in to buy more than one license.'); the login modal now offers
// CREATE NEW ACCOUNT (spec 001 §2) beside the login, creates and logs in the account, and
// goes on to payment with the same cart and card, never leaving /buy until the receipt.
// Before: a login modal with no way to create an account.
test.describe('checkout on /buy: a new organization', () => {
  test.setTimeout(180_000);

  test('buys Business Pro × 5 by creating its account in the login modal, without leaving the page', async ({ page }) => {
    const visited: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) visited.push(new URL(f.url()).pathname);
    });
    const email = freshEmail('neworg');
    await openBuy(page);
    await choosePlan(page, /^Business Pro/);
    await page.getByRole('textbox', { name: 'Number of licenses', exact: true }).fill('5');
    await expect(page.getByTestId('invoice')).toContainText('× 5');
    const account = page.getByTestId('account');
    await account.getByRole('textbox', { name: 'Email Address' }).first().fill(email);
    await account.getByRole('textbox', { name: 'Organization Name' }).fill('New Wings Flight Dept');
    await fillCard(page, '4111111111111111');
    await page.getByRole('checkbox', { name: /license agreement/ }).check();
    await page.getByRole('checkbox', { name: /terms of use/ }).check();
    await purchase(page);

    const modal = page.getByRole('dialog', { name: 'Login Required' });
    await expect(modal).toBeVisible();
    await expect(errorsBox(page)).toContainText('Please log in to buy more than one license.');
    const create = modal.getByRole('form', { name: 'CREATE NEW ACCOUNT' });
    await expect(create.getByLabel('Email Address')).toHaveValue(email);
    await expect(create.getByLabel('Organization Name')).toHaveValue('New Wings Flight Dept');
    await expect(modal.getByRole('form', { name: 'LOGIN TO EXISTING ACCOUNT' })).toBeVisible();
    await expectAccessible(page, 'buy: create an account in the login modal');
    // Passwords that differ are caught before anything is sent.
    await create.getByLabel('Password', { exact: true }).fill('a long enough passphrase 42');
    await create.getByLabel('Confirm Password').fill('another passphrase 42');
    await create.getByRole('button', { name: 'CREATE ACCOUNT AND CONTINUE' }).click();
    await expect(create).toContainText('Passwords do not match');
    await create.getByLabel('Confirm Password').fill('a long enough passphrase 42');
    await create.getByRole('button', { name: 'CREATE ACCOUNT AND CONTINUE' }).click();

    // Logged in as the new account, the purchase goes on by itself to the receipt.
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 60_000 });
    await expect(page.getByTestId('receipt')).toContainText('Business Pro');
    await expect(page.getByTestId('receipt')).toContainText(email);
    expect(visited.filter((p) => p !== '/buy/success')).toEqual(visited.filter((p) => p === '/buy'));
    // The organization was created at checkout with the name from the cart.
    const me = await (await page.request.get('/buy/api/me')).json();
    expect(me).toMatchObject({ loggedIn: true, email, isOrgOwner: true, organizationName: 'New Wings Flight Dept' });
  });
});
