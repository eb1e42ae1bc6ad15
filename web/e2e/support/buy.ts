import { expect as baseExpect, type Page, type APIRequestContext } from '@playwright/test';
import { randomUUID } from 'node:crypto';

/**
 * A shared 2-core machine under load answers slowly: the checkout journeys wait longer than the
 * default, and longer still with HANGAR_E2E_SLOWDOWN (as the config's own limits do).
 */
export const expect = baseExpect.configure({ timeout: 30_000 * Math.max(1, Number(process.env.HANGAR_E2E_SLOWDOWN) || 1) });
import { expectAccessible } from './helpers';

/** A fresh e-mail per test and run: tests never depend on each other or on earlier runs. */
export function freshEmail(tag: string): string {
  return `e2e-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;
}

export const PASSWORD = 'hangar-demo-pass';

export async function total(page: Page, text: string): Promise<void> {
  await expect(page.getByTestId('invoice-total')).toHaveText(text);
}

/** Waits for the page's invoice and checks accessibility (no serious or critical axe violations). */
export async function step(page: Page, label: string): Promise<void> {
  await expect(page.getByTestId('invoice-total')).toBeVisible();
  await expectAccessible(page, label);
}

export async function openBuy(page: Page, path = '/buy'): Promise<void> {
  await page.goto(path);
  await expect(page.getByTestId('invoice-total')).toBeVisible();
}

export async function choosePlan(page: Page, name: RegExp): Promise<void> {
  const plans = page.locator('#section-plans');
  // A plan picked with the pointer collapses the section to its summary: open it again.
  const toggle = plans.getByRole('button', { name: /^\W*Plans/ });
  if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
  await plans.getByRole('radio', { name }).check();
}

/** Types a test card into the payments service's hosted fields (an iframe). */
export async function fillCard(page: Page, number: string, opts: { name?: string; zip?: string; country?: string } = {}): Promise<void> {
  const frame = page.frameLocator('[data-testid="hosted-fields"]');
  await frame.locator('#number').fill(number);
  await frame.locator('#expirationDate').fill('12/2031');
  await frame.locator('#cvv').fill(number.startsWith('37') ? '1234' : '123');
  await fillBilling(page, opts);
}

/** name null: the card reader's payment, which reads the name from the card and asks for none. */
export async function fillBilling(page: Page, { name = 'Amelia Earhart', zip = '97201', country = 'US' }: { name?: string | null; zip?: string; country?: string } = {}): Promise<void> {
  const pay = page.getByTestId('payment');
  if (name !== null) await pay.getByLabel('Cardholder name').fill(name);
  await pay.getByLabel('ZIP / Postal code').fill(zip);
  await pay.getByLabel('Country').selectOption(country);
}

/**
 * Ticks the human-verification widget: the suite's stack runs with it on (make dev's
 * development verifier, as the chart runs reCAPTCHA), so every card payment needs the tick.
 * Ticking twice is a no-op.
 */
export async function verifyHuman(page: Page): Promise<void> {
  await page.getByTestId('human-verification').getByRole('checkbox', { name: /not a robot/ }).check();
}

/** Pays on /gift: ticks the widget, then Buy Gift Certificate. */
export async function buyGift(page: Page): Promise<void> {
  await verifyHuman(page);
  await page.getByRole('button', { name: 'Buy Gift Certificate' }).click();
}

/** Pays on the one-off cart page: ticks the widget, then Complete Order. */
export async function completeOrder(page: Page): Promise<void> {
  await verifyHuman(page);
  await page.getByRole('button', { name: 'Complete Order' }).click();
}

export async function purchase(page: Page): Promise<void> {
  await verifyHuman(page);
  const button = page.getByRole('button', { name: /^Pay\b/ });
  await expect(button).toBeEnabled();
  await button.click();
}

/** Creates an account through identity's public route, as the page would at checkout. */
export async function createAccount(request: APIRequestContext, email: string): Promise<void> {
  // page.request shares the browser context's cookies: the new session logs the page in.
  await request.get('/buy/api/me');
  const state = await request.storageState();
  const xsrf = state.cookies.find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const r = await request.post('/pricing/api/create-account/', {
    headers: { 'X-XSRF-TOKEN': xsrf },
    data: { username: email, password: PASSWORD, confirmPassword: PASSWORD, is_eu: false, consent: true },
  });
  expect(r.ok(), await r.text()).toBeTruthy();
}

/** Logs in through the page's LOGIN TO EXISTING ACCOUNT panel. */
export async function loginOnPage(page: Page, email: string, password = PASSWORD): Promise<void> {
  const form = page.getByRole('form', { name: 'LOGIN TO EXISTING ACCOUNT' });
  await form.getByLabel('Email Address').fill(email);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'LOGIN' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(email);
}

/** An account with a password that bought a plan with a card (so the card is on file). */
export async function subscriber(page: Page, tag: string, plan: RegExp, extra?: (page: Page) => Promise<void>): Promise<string> {
  const email = freshEmail(tag);
  await createAccount(page.request, email);
  await openBuy(page);
  await expect(page.getByTestId('signed-in-user')).toHaveText(email);
  await choosePlan(page, plan);
  if (extra) await extra(page);
  await fillCard(page, '4111111111111111');
  await purchase(page);
  await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
  await expect(page.getByTestId('receipt-total')).toBeVisible();
  return email;
}

export function errorsBox(page: Page) {
  return page.getByTestId('errors');
}

/** A path on payments' card-fields origin (never the store's), as the client token names it. */
export async function fieldsUrl(page: Page, path: string): Promise<string> {
  const token = (await (await page.request.get('/buy/api/payments/client-token')).json()) as { hostedFieldsUrl: string };
  return new URL(path, token.hostedFieldsUrl).toString();
}

/**
 * Puts a card on file for the logged-in account through payments' payment-method update
 * (what the account page does). A purchase's charge vaults its card but does not make it
 * the method on file yet, so the renewal test sets it this way. The update is behind human
 * verification as card payments are: it sends a value the development verifier accepts,
 * as its widget hands out when ticked (internal/devhuman: 'dev-human-' and any suffix).
 */
export async function putCardOnFile(page: Page, number = '4111111111111111'): Promise<void> {
  const state = await page.context().storageState();
  const xsrf = state.cookies.find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const me = await (await page.request.get('/buy/api/me')).json();
  const tok = await page.request.post(await fieldsUrl(page, '/api/tokenize'), { data: { number, cvv: '123', expirationDate: '12/2031' } });
  expect(tok.ok(), await tok.text()).toBeTruthy();
  const { nonce } = await tok.json();
  const r = await page.request.post('/buy/api/subscription/update-payment-method', {
    headers: { 'X-XSRF-TOKEN': xsrf },
    data: { accountId: me.accountUuid, nonce, zipcode: '97201', cardholderName: 'Amelia Earhart', country: 'US', paymentMethod: 'CREDIT_CARD', recaptchaValue: `dev-human-${randomUUID()}` },
  });
  expect(r.ok(), await r.text()).toBeTruthy();
  expect((await r.json()).status).toBe('succeeded');
}

export interface DataLayerEntry {
  event: string;
  accountId?: string;
  source?: string;
  ecommerce?: { currency?: string; value?: number; transaction_id?: string; items?: unknown[] };
}

/**
 * Puts the tag manager's data layer on the page before its scripts run, as the tag's
 * snippet does. The test keeps a copy of every entry in the tab's session storage, so the
 * entries survive the page loads of one journey (the success page is a new document).
 */
export async function withDataLayer(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const layer: unknown[] = [];
    layer.push = (...entries: unknown[]) => {
      const kept = JSON.parse(sessionStorage.getItem('e2e.dataLayer') ?? '[]') as unknown[];
      sessionStorage.setItem('e2e.dataLayer', JSON.stringify([...kept, ...entries]));
      return Array.prototype.push.apply(layer, entries);
    };
    (window as unknown as { dataLayer: unknown[] }).dataLayer = layer;
  });
}

export async function dataLayer(page: Page): Promise<DataLayerEntry[]> {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem('e2e.dataLayer') ?? '[]') as DataLayerEntry[]);
}

/**
 * Presents a test card to a sales-mode card reader (the dev simulator), polling until the page
 * has asked the reader for a card (the simulator answers 200 only then).
 */
export async function presentCardToReader(page: Page, readerSerialNumber = 'RDR-0001'): Promise<void> {
  const xsrf = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  await expect
    .poll(
      async () =>
        (
          await page.request.post('/buy/api/card-reader/simulate', {
            headers: { 'X-XSRF-TOKEN': xsrf },
            data: { readerSerialNumber, number: '4111111111111111', cvv: '123', expirationDate: '12/2031', cardholderName: 'Amelia Earhart', postalCode: '97201' },
          })
        ).status(),
      { timeout: 30_000 },
    )
    .toBe(200);
}
