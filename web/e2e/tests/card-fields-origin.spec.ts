import { expect, test, type Browser, type Page, type Request } from '@playwright/test';
import { login } from '../support/store';
import * as buy from '../support/buy';

// The card fields live on payments' fields origin, never the store's (docs/pci-saq-a.md;
// issue 26: a script on /product/cart/{id} read the card number and CVV out of a same-origin
// frame, and card numbers were posted to the store's own tokenize). On every page with the
// fields: the frame is another origin, the store page's scripts cannot read it, the card
// number goes to the fields origin only, a third origin's postMessage is ignored by both
// sides, and the purchase still completes.

const CARD = '4111111111111111';
const unique = (tag: string) => `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@e2e.hangar.test`;

/** What a page sent, as the browser sent it (every frame's requests). */
interface Traffic {
  /** Origins of requests whose URL or body carried the card number. */
  cardTo: string[];
  /** Tokenize requests (any origin). */
  tokenize: string[];
  /** Nonces of the order submits. */
  submitted: string[];
}

function watch(page: Page): Traffic {
  const t: Traffic = { cardTo: [], tokenize: [], submitted: [] };
  page.on('request', (r: Request) => {
    const body = r.postData() ?? '';
    const url = r.url();
    if (body.replace(/[\s-]/g, '').includes(CARD) || url.replace(/%20|[\s-]/g, '').includes(CARD)) t.cardTo.push(new URL(url).origin);
    if (r.method() === 'POST' && /\/tokenize$/.test(new URL(url).pathname)) t.tokenize.push(url);
    if (r.method() === 'POST' && /\/submit$/.test(new URL(url).pathname)) {
      try {
        const b = JSON.parse(body) as { nonce?: string };
        if (b.nonce) t.submitted.push(b.nonce);
      } catch {
        // not JSON: not an order
      }
    }
  });
  return t;
}

/**
 * A third origin: a sandboxed frame (an opaque origin, neither the store's nor the fields')
 * put onto the store page, which keeps posting forged messages to the store page (ready, a
 * nonce, an error) and to every frame of it (tokenize with the attacker's name, clear) for
 * as long as it lives. Were either side to take them, the submit would carry the forged
 * nonce, the page would show the forged error, or the fields would tokenise twice or be
 * cleared before the real purchase. (The test runs the frame's script through the
 * debugger, as an injected script would run; the store's CSP forbids inline scripts.)
 */
async function frameThirdOrigin(page: Page): Promise<void> {
  await page.evaluate(() => {
    const f = document.createElement('iframe');
    f.setAttribute('sandbox', 'allow-scripts');
    f.srcdoc = '<!doctype html><title>third</title>';
    f.title = 'third origin';
    f.dataset.testid = 'third-origin';
    document.body.append(f);
  });
  const el = await page.getByTestId('third-origin').elementHandle();
  const third = await el!.contentFrame();
  const origin = await third!.evaluate(() => {
    setInterval(() => {
      parent.postMessage({ type: 'hangar:ready' }, '*');
      parent.postMessage({ type: 'hangar:nonce', nonce: 'tokencc_forged_by_a_third_origin', details: { lastFour: '0000' } }, '*');
      parent.postMessage({ type: 'hangar:error', errorType: 'CUSTOMER', message: 'Forged by a third origin' }, '*');
      for (let i = 0; i < parent.frames.length; i++) {
        parent.frames[i]!.postMessage({ type: 'hangar:tokenize', cardholderName: 'Mallory', postalCode: '00000' }, '*');
        parent.frames[i]!.postMessage({ type: 'hangar:clear' }, '*');
      }
    }, 25);
    return window.origin;
  });
  expect(origin, 'the third frame is an origin of its own').toBe('null');
}

/**
 * Types the card into the fields, then checks what a script of the store page can see:
 * the finding's exact script reads nothing (contentDocument is null, the frame's document
 * is out of reach), and the frame is another origin (the fields origin when the run names
 * it: HANGAR_FIELDS_URL).
 */
async function expectFieldsIsolated(page: Page, number = CARD): Promise<void> {
  const frame = page.frameLocator('[data-testid="hosted-fields"]');
  await frame.locator('#number').fill(number);
  await frame.locator('#expirationDate').fill('12/2031');
  await frame.locator('#cvv').fill('123');
  await expect(frame.locator('#number')).toHaveValue(number);

  const seen = await page.evaluate(() => {
    const f = document.querySelector('[data-testid="hosted-fields"]') as HTMLIFrameElement;
    let number: string | null = null;
    let cvv: string | null = null;
    try {
      number = (f.contentDocument!.querySelector('#number') as HTMLInputElement).value;
      cvv = (f.contentDocument!.querySelector('#cvv') as HTMLInputElement).value;
    } catch {
      // the browser refuses: another origin
    }
    let viaWindow: string | null = null;
    try {
      viaWindow = ((f.contentWindow as Window).document.querySelector('#number') as HTMLInputElement).value;
    } catch {
      // the same
    }
    return { contentDocumentIsNull: f.contentDocument === null, number, cvv, viaWindow };
  });
  expect(seen, 'a script on the store page reads the card fields').toEqual({ contentDocumentIsNull: true, number: null, cvv: null, viaWindow: null });

  const src = await page.getByTestId('hosted-fields').getAttribute('src');
  const frameOrigin = new URL(src ?? '', page.url()).origin;
  expect(frameOrigin, 'the card fields frame is the store page’s own origin').not.toBe(new URL(page.url()).origin);
  if (process.env.HANGAR_FIELDS_URL) expect(frameOrigin).toBe(new URL(process.env.HANGAR_FIELDS_URL).origin);
}

/** After the purchase: the card went to the fields origin only, once, and no forged nonce was submitted. */
function expectCardOnlyAtFields(page: Page, t: Traffic, fieldsOrigin: string): void {
  expect(t.cardTo.length, 'the card number was sent somewhere').toBeGreaterThan(0);
  expect([...new Set(t.cardTo)], 'origins the card number was sent to').toEqual([fieldsOrigin]);
  expect(t.tokenize, 'tokenisations (a forged tokenize message was obeyed?)').toHaveLength(1);
  expect(new URL(t.tokenize[0]!).origin).toBe(fieldsOrigin);
  expect(fieldsOrigin).not.toBe(new URL(page.url()).origin);
  for (const n of t.submitted) expect(n).not.toContain('forged');
}

async function fieldsOriginOf(page: Page): Promise<string> {
  const src = await page.getByTestId('hosted-fields').getAttribute('src');
  return new URL(src ?? '', page.url()).origin;
}

async function staffCart(browser: Browser, quantities: Record<string, string>): Promise<string> {
  const staff = await browser.newContext();
  const sp = await staff.newPage();
  await login(sp, 'employee@demo.hangar.test');
  await sp.goto('/product/cart-create');
  for (const [product, q] of Object.entries(quantities)) await sp.getByLabel(`Quantity of ${product}`).fill(q);
  await sp.getByRole('button', { name: 'Create Cart' }).click();
  const link = await sp.getByTestId('cart-link').getByRole('link').getAttribute('href');
  await staff.close();
  return new URL(link!).pathname;
}

test.describe('card fields on their own origin', () => {
  test('/buy: the fields are another origin, unreadable by the page; the card goes only there; the purchase completes', async ({ page }) => {
    test.setTimeout(120_000);
    const t = watch(page);
    await buy.createAccount(page.request, unique('fields-buy'));
    await buy.openBuy(page);
    await buy.choosePlan(page, /^Premium/);
    await expectFieldsIsolated(page);
    await frameThirdOrigin(page);
    await buy.fillBilling(page);
    const fields = await fieldsOriginOf(page);
    await buy.purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    await expect(page.getByTestId('receipt-total')).toBeVisible();
    expectCardOnlyAtFields(page, t, fields);
  });

  test('/gift: the same, and a gift certificate is bought', async ({ page }) => {
    test.setTimeout(120_000);
    const t = watch(page);
    await page.goto('/gift');
    await page.getByLabel('Email Address').fill(unique('fields-gift'));
    await page.getByLabel('Cardholder name').fill('Amelia Earhart');
    await page.getByLabel('ZIP / Postal code').fill('94105');
    await page.getByLabel('Country').selectOption('US');
    await expectFieldsIsolated(page);
    await frameThirdOrigin(page);
    const fields = await fieldsOriginOf(page);
    await buy.buyGift(page);
    await page.waitForURL(/\/buy\/success\?invoiceId=/);
    await expect(page.getByText('Forged by a third origin')).toHaveCount(0);
    expectCardOnlyAtFields(page, t, fields);
  });

  test('/product/cart/{id}: the finding’s page; the script reads nothing and the cart is paid', async ({ page, browser }) => {
    test.setTimeout(150_000);
    const path = await staffCart(browser, { 'Garmin Database Card (SD)': '1' });
    const t = watch(page);
    await buy.createAccount(page.request, unique('fields-cart'));
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: 'COMPLETE YOUR ORDER' })).toBeVisible();
    await page.getByLabel('Cardholder name').fill('Amelia Earhart');
    await page.getByLabel('ZIP / Postal code').fill('97201');
    await page.getByLabel('Country').selectOption('US');
    await expectFieldsIsolated(page);
    await frameThirdOrigin(page);
    const fields = await fieldsOriginOf(page);
    await buy.completeOrder(page);
    await page.waitForURL(/\/buy\/success\?invoiceId=/);
    expectCardOnlyAtFields(page, t, fields);
  });

  test('/account: the payment-method update takes the card through the fields origin only', async ({ page }) => {
    test.setTimeout(120_000);
    const t = watch(page);
    await login(page, 'pilot@demo.hangar.test');
    await page.goto('/account');
    const pm = page.getByTestId('payment-method');
    await pm.getByRole('button', { name: 'Update payment method' }).click();
    await expectFieldsIsolated(page);
    await frameThirdOrigin(page);
    const form = page.getByRole('form', { name: 'Update payment method' });
    await form.getByLabel('Cardholder name').fill('Pat Pilot');
    await form.getByLabel('ZIP / Postal code').fill('94105');
    await form.getByLabel('Country').selectOption('US');
    const fields = await fieldsOriginOf(page);
    await buy.verifyHuman(page);
    await pm.getByRole('button', { name: 'Save payment method' }).click();
    await expect(pm).toHaveAttribute('data-state', 'succeeded');
    await expect(page.getByTestId('payment-method-current')).toContainText('ending in 1111');
    expectCardOnlyAtFields(page, t, fields);
  });

  test('the store’s origin takes no card: its tokenize is a JSON 404, the fields origin’s answers a nonce', async ({ page }) => {
    await page.goto('/buy');
    const res = await page.request.post('/buy/api/payments/tokenize', { data: { number: CARD, cvv: '123', expirationDate: '12/2031' } });
    expect(res.status()).toBe(404);
    expect((await res.json()).code).toBe('not_found');
    const token = await (await page.request.get('/buy/api/payments/client-token')).json();
    const fields = new URL(token.hostedFieldsUrl);
    expect(fields.origin).not.toBe(new URL(page.url()).origin);
    const ok = await page.request.post(new URL('/api/tokenize', fields).toString(), { data: { number: CARD, cvv: '123', expirationDate: '12/2031' } });
    expect(ok.status(), await ok.text()).toBe(200);
    expect((await ok.json()).nonce).toMatch(/^tokencc_/);
    // The fields page may be framed by the store only.
    const pageRes = await page.request.get(fields.toString());
    expect(pageRes.headers()['content-security-policy']).toMatch(/frame-ancestors [^;]*127\.0\.0\.1|frame-ancestors [^;]*localhost/);
    expect(pageRes.headers()['content-security-policy']).toContain("connect-src 'self'");
  });
});
