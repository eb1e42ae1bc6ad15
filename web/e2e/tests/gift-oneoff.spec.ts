import { expect, test, type Frame, type Page } from '@playwright/test';
import { keepScreenshot } from '../support/helpers';

// Gift certificates and one-off carts, end to end through the real stack: the pages, the
// hosted card fields, checkout's order pipeline and the receipt. Every run uses fresh
// e-mails and a fresh cart, so the tests repeat on one database.

const unique = (tag: string) => `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@e2e.hangar.test`;

async function cardFrame(page: Page): Promise<Frame> {
  const el = await page.getByTestId('hosted-fields').elementHandle();
  const frame = await el!.contentFrame();
  await frame!.waitForSelector('#number');
  return frame!;
}

async function fillCard(page: Page, number = '4111 1111 1111 1111') {
  const frame = await cardFrame(page);
  await frame.fill('#number', number);
  await frame.fill('#expirationDate', '12/2030');
  await frame.fill('#cvv', '123');
}

/** The receipt of the order, read with the paying browser's cookies (as the success page does). */
async function receipt(page: Page, invoiceId: string) {
  const res = await page.request.get(`/buy/api/receipt/${invoiceId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as { invoiceId: string; totalInCents?: number | string; invoiceItems?: Array<{ type?: string; description?: string }> };
}

test('buy two gift certificates (370 and a custom 40) with a test card and see the receipt', async ({ page }) => {
  test.setTimeout(90_000); // a whole purchase on a shared, busy machine
  await page.goto('/gift');
  await expect(page.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'gift certificate terms' })).toBeVisible();
  await page.getByRole('button', { name: 'Add Another Certificate' }).click();
  await page.getByLabel('Certificate 2 amount').selectOption('custom');
  await page.getByLabel('Custom amount (25 to 1000)').fill('40');
  await expect(page.getByTestId('gift-total')).toHaveText('$410');

  // The form's own messages before anything is charged.
  await page.getByRole('button', { name: 'Buy Gift Certificate' }).click();
  await expect(page.getByRole('alert')).toContainText('Please enter your email address');

  await page.getByLabel('Email Address').fill(unique('gift'));
  await page.getByLabel('Name on card').fill('Amelia Earhart');
  await page.getByLabel('Postal Code').fill('94105');
  await page.getByLabel('Country').selectOption('US');
  await fillCard(page);
  await keepScreenshot(page, 'gift-form');
  await page.getByRole('button', { name: 'Buy Gift Certificate' }).click();

  await page.waitForURL(/\/buy\/success\?invoiceId=/);
  const invoiceId = new URL(page.url()).searchParams.get('invoiceId')!;
  const r = await receipt(page, invoiceId);
  expect(Number(r.totalInCents)).toBe(41000);
  expect((r.invoiceItems ?? []).filter((l) => l.type === 'GIFT_CERTIFICATE')).toHaveLength(2);
  // Local storage is cleared on success.
  expect(await page.evaluate(() => localStorage.getItem('hangar.gift.form'))).toBeNull();
  await keepScreenshot(page, 'gift-receipt');
});

test('staff create a preset cart; a buyer opens its link, changes a quantity, pays and sees the receipt', async ({ page, browser }) => {
  test.setTimeout(120_000); // two sessions and a whole purchase on a shared, busy machine
  // Staff: the cart builder, logged in as the demo employee (the API sets the session cookie).
  const staff = await browser.newContext();
  const sp = await staff.newPage();
  await sp.goto('/');
  await sp.request.get('/buy/api/me'); // sets the XSRF-TOKEN cookie
  const xsrf = (await staff.cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const login = await sp.request.post('/pricing/api/login', {
    headers: { 'X-XSRF-TOKEN': xsrf },
    data: { username: 'employee@demo.hangar.test', password: 'hangar-demo-pass' },
  });
  expect(login.ok(), await login.text()).toBeTruthy();
  await sp.goto('/product/cart-create');
  await expect(sp.getByRole('heading', { level: 1, name: 'CREATE A ONE-OFF CART' })).toBeVisible();
  await sp.getByLabel('Quantity of Printed Chart Pack: US VFR Sectionals').fill('1');
  await sp.getByLabel('Quantity of Garmin Database Card (SD)').fill('2');
  await sp.getByRole('button', { name: 'Create Cart' }).click();
  const link = await sp.getByTestId('cart-link').getByRole('link').getAttribute('href');
  expect(link).toMatch(/\/product\/cart\/[0-9a-f-]{36}$/);
  await keepScreenshot(sp, 'cart-create');
  await staff.close();

  // The buyer: a new account (create-account logs it in), then the link.
  await page.goto('/');
  await page.request.get('/buy/api/me'); // sets the XSRF-TOKEN cookie
  const xsrf2 = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const email = unique('oneoff');
  const created = await page.request.post('/pricing/api/create-account/', {
    headers: { 'X-XSRF-TOKEN': xsrf2 },
    data: { username: email, password: 'e2e-buyer-pass-1', confirmPassword: 'e2e-buyer-pass-1', is_eu: false, consent: true },
  });
  expect(created.ok(), await created.text()).toBeTruthy();
  const me = await (await page.request.get('/buy/api/me')).json();
  if (!me.loggedIn) {
    const l = await page.request.post('/pricing/api/login', { headers: { 'X-XSRF-TOKEN': xsrf2 }, data: { username: email, password: 'e2e-buyer-pass-1' } });
    expect(l.ok()).toBeTruthy();
  }
  await page.goto(new URL(link!).pathname);
  await expect(page.getByRole('heading', { level: 1, name: 'COMPLETE YOUR ORDER' })).toBeVisible();
  await expect(page.getByTestId('oneoff-total')).toHaveText('$187'); // 89 + 2 × 49
  // Three chart packs instead of one: typed digits commit after 1 s idle.
  await page.getByLabel('Quantity: Printed Chart Pack: US VFR Sectionals').fill('3');
  await expect(page.getByTestId('oneoff-total')).toHaveText('$365');
  await page.getByLabel('Name on card').fill('Amelia Earhart');
  await page.getByLabel('Postal Code').fill('97201');
  await page.getByLabel('Country').selectOption('US');
  await fillCard(page);
  await keepScreenshot(page, 'oneoff-cart');
  await page.getByRole('button', { name: 'Complete Order' }).click();

  await page.waitForURL(/\/buy\/success\?invoiceId=/);
  const invoiceId = new URL(page.url()).searchParams.get('invoiceId')!;
  const r = await receipt(page, invoiceId);
  expect(Number(r.totalInCents)).toBe(36500);
  await keepScreenshot(page, 'oneoff-receipt');
});

test('an unknown cart link shows the fetch error', async ({ page }) => {
  await page.goto('/product/cart/00000000-0000-4000-8000-00000000abcd');
  await expect(page.getByText('Error when fetching pre-configured cart:')).toBeVisible();
});
