import { test, type Page } from '@playwright/test';
import { choosePlan, expect, fillCard, freshEmail, openBuy, purchase, step } from '../support/buy';
import { expectAccessible } from '../support/helpers';

// Issue 31: the total and the Pay button in view, a compact configurator, a re-pricing that
// never leaves a stale total, and a printed receipt without the store's chrome.

const PURCHASE = /^Pay\b/;

/** True when the element's centre is on screen and nothing (a banner, a bar) covers it. */
async function inViewAndOnTop(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (y < 0 || y > window.innerHeight || x < 0 || x > window.innerWidth) return false;
    const top = document.elementFromPoint(x, y);
    return top !== null && (top === el || el.contains(top));
  }, selector);
}

/**
 * A wide card frame (payments' fields page) has number, expiry and CVV on one line and is
 * their height (124 px, not 200 with a blank band), its error message fitting without a
 * scroll bar.
 */
async function expectCardFieldsOnOneLine(page: Page) {
  const frame = page.getByTestId('hosted-fields');
  await expect(frame).toBeVisible();
  expect((await frame.boundingBox())!.width).toBeGreaterThan(560);
  await expect.poll(async () => (await frame.boundingBox())!.height).toBeLessThanOrEqual(126);
  const fields = page.frameLocator('[data-testid="hosted-fields"]');
  const [num, cvv] = [await fields.locator('#number').boundingBox(), await fields.locator('#cvv').boundingBox()];
  expect(Math.abs(num!.y - cvv!.y)).toBeLessThan(2);
  await fields.locator('#error').evaluate((el: HTMLElement) => {
    el.textContent = 'Please enter a valid card number.';
    el.hidden = false;
  });
  expect(await fields.locator('body').evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
}

// As the config's own limits: HANGAR_E2E_SLOWDOWN scales it (axe on /buy alone ran past 120 s
// on the shared machine at load 30-50).
test.describe.configure({ timeout: 120_000 * Math.max(1, Number(process.env.HANGAR_E2E_SLOWDOWN) || 1) });

test.describe('/buy on desktop (1280 px)', () => {
  test('the order summary and its Pay button stay in view at every scroll position', async ({ page }) => {
    await openBuy(page);
    const invoice = page.getByTestId('invoice');
    expect(await invoice.evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
    const button = invoice.getByRole('button', { name: PURCHASE });
    await button.evaluate((el) => el.setAttribute('data-e2e', 'purchase'));
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const viewport = page.viewportSize()!.height;
    const positions: number[] = [];
    for (let y = 0; y < height - viewport; y += 250) positions.push(y);
    positions.push(height - viewport);
    for (const y of positions) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(y);
      expect(await inViewAndOnTop(page, '[data-e2e="purchase"]'), `Purchase in view at scrollY ${y}`).toBe(true);
      await expect(page.getByTestId('invoice-total')).toBeInViewport();
    }
  });

  test('the e-mail block comes before the currency selector (spec 000 §2: e-mail 2nd, currency 3rd)', async ({ page }) => {
    await openBuy(page);
    const email = page.getByTestId('account').getByRole('textbox', { name: 'Email Address' }).first();
    const currency = page.getByLabel('Currency', { exact: true });
    await expect(email).toBeVisible();
    await expect(currency).toBeVisible();
    // In the document (what a screen reader and the Tab key follow) and on screen.
    const emailFirst = await email.evaluate((e, c) => Boolean(e.compareDocumentPosition(c!) & Node.DOCUMENT_POSITION_FOLLOWING), await currency.elementHandle());
    expect(emailFirst, 'the currency selector precedes the e-mail field in the document').toBe(true);
    const [e, c] = [await email.boundingBox(), await currency.boundingBox()];
    expect(c!.y, 'the currency selector sits above the e-mail field').toBeGreaterThan(e!.y + e!.height);
    // It still works where it stands.
    await currency.selectOption('EUR');
    await expect(page).toHaveURL(/[?&]currency=EUR/);
  });

  test('/buy with its default sections, coverage map included, is about 2,500 px high (the issue measured 4,000)', async ({ page }) => {
    await openBuy(page);
    await expect(page.locator('#section-addOns input[type=checkbox]').first()).toBeVisible();
    // The coverage map (spec 001 §9: 300 px high) stands beside the region list on a desktop,
    // not above it; the card fields are one line. Measured 2,506 px on 2026-11-27 (2,920 with
    // the map above the list).
    const map = page.getByTestId('coverage-map');
    await expect(map).toBeVisible();
    expect((await map.boundingBox())?.height).toBe(300);
    const [mapBox, listBox] = [await map.boundingBox(), await page.locator('#section-regions fieldset').boundingBox()];
    expect(listBox!.x, 'the region list stands beside the map').toBeGreaterThanOrEqual(mapBox!.x + mapBox!.width);
    await expectCardFieldsOnOneLine(page);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThanOrEqual(2550);
  });

  test('/gift has the card fields on one line too, in a frame of their height', async ({ page }) => {
    await page.goto('/gift');
    await expectCardFieldsOnOneLine(page);
  });

  test('a plan picked with the pointer collapses the plans to a one-line summary; the arrow keys do not', async ({ page }) => {
    await openBuy(page);
    const plans = page.locator('#section-plans');
    // Keyboard: stepping through the radios keeps the list open (the buyer is still choosing).
    await plans.getByRole('radio', { name: /^Essential/ }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(plans.getByRole('radio', { name: /^Premium/ })).toBeChecked();
    await expect(plans.getByRole('radio', { name: /^Premium/ })).toBeVisible();
    // Pointer: the choice is made; the section shows it in one line.
    await plans.getByRole('radio', { name: /^Starter\b/ }).first().click();
    await expect(page.getByTestId('summary-plans')).toHaveText(/^Starter · \$125\/yr$/);
    await expect(plans.getByRole('radio').first()).toBeHidden();
    await expect(plans.getByRole('button', { name: /Plans/ })).toHaveAttribute('aria-expanded', 'false');
    await step(page, 'plans collapsed');
    // The helper opens it again to choose another plan.
    await choosePlan(page, /^Premium/);
    await expect(page.getByTestId('invoice-total')).toHaveText('$370');
    // The collapsed optional sections say what is chosen.
    await expect(page.getByTestId('summary-vfr')).toHaveText('None selected');
  });

  test('App / Web / Both is a segmented control that the keyboard drives', async ({ page }) => {
    await openBuy(page);
    await page.getByRole('button', { name: /Jeppesen IFR Charts/ }).click();
    const app = page.getByRole('radio', { name: 'Jeppesen United States: App' });
    await app.check();
    await expect(app).toBeChecked();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('radio', { name: 'Jeppesen United States: Web' })).toBeChecked();
    const group = page.getByRole('radiogroup', { name: 'Jeppesen United States' });
    // One joined control: every segment on one line, the same height.
    const boxes = await group.locator('label').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect()).map((r) => ({ top: Math.round(r.top), h: Math.round(r.height) })));
    expect(new Set(boxes.map((b) => b.top)).size).toBe(1);
    expect(new Set(boxes.map((b) => b.h)).size).toBe(1);
    await expectAccessible(page, 'charts segmented control');
  });
});

// Issue 31 item 4: "a tidy segmented control at every width".
for (const width of [390, 768, 1280]) {
  test.describe(`App / Web / Both at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test('every segmented control keeps its options on one line, inside its box and the page', async ({ page }) => {
      await openBuy(page);
      await page.getByRole('button', { name: /Jeppesen IFR Charts/ }).click();
      await expect(page.getByRole('radiogroup', { name: 'Jeppesen United States' })).toBeVisible();
      const groups = page.locator('[role=radiogroup]:has(input[type=radio][aria-label$=": Both"])');
      expect(await groups.count()).toBeGreaterThan(0);
      const faults = await groups.evaluateAll((gs) => {
        const out: string[] = [];
        for (const g of gs) {
          const name = document.getElementById(g.getAttribute('aria-labelledby') ?? '')?.textContent ?? '?';
          const gr = g.getBoundingClientRect();
          if (gr.width === 0) continue; // a collapsed section's control is not on screen
          if (g.scrollWidth > g.clientWidth + 1) out.push(`${name}: scrolls sideways (${g.scrollWidth} > ${g.clientWidth})`);
          if (gr.left < 0 || gr.right > document.documentElement.clientWidth + 0.5) out.push(`${name}: outside the page (${gr.left}..${gr.right})`);
          const labels = [...g.querySelectorAll('label')];
          const tops = new Set(labels.map((l) => Math.round(l.getBoundingClientRect().top)));
          if (tops.size !== 1) out.push(`${name}: options wrap onto ${tops.size} rows`);
          for (const l of labels) {
            const r = l.getBoundingClientRect();
            if (r.left < gr.left - 0.5 || r.right > gr.right + 0.5) out.push(`${name}: '${l.textContent}' sticks out of the control`);
            // The text's line boxes (the hidden radio covers the whole segment, so not its rect).
            const lines = new Set<number>();
            const texts = document.createTreeWalker(l, NodeFilter.SHOW_TEXT);
            for (let t = texts.nextNode(); t; t = texts.nextNode()) {
              const range = document.createRange();
              range.selectNodeContents(t);
              for (const q of range.getClientRects()) if (q.width > 0) lines.add(Math.round(q.top));
            }
            if (lines.size > 1) out.push(`${name}: '${l.textContent}' takes ${lines.size} lines`);
          }
        }
        return out;
      });
      expect(faults).toEqual([]);
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    });
  });
}

test.describe('/buy on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('a compact bar shows the total and jumps to payment; it steps aside when the summary is in view', async ({ page }) => {
    await openBuy(page);
    const bar = page.getByTestId('paybar');
    await expect(bar).toBeVisible();
    await expect(bar.getByTestId('paybar-total')).toHaveText('$199.99');
    await bar.getByRole('button', { name: 'Go to payment' }).click();
    await expect(page.getByRole('heading', { name: 'Payment' })).toBeFocused();
    // Issue 45: the jump went back up to the Payment heading; it reaches the card form.
    await expect(page.getByTestId('hosted-fields')).toBeInViewport();
    await page.getByTestId('invoice').getByRole('button', { name: PURCHASE }).scrollIntoViewIfNeeded();
    await expect(bar).toBeHidden();
    await expectAccessible(page, 'phone pay bar');
  });

  // Issue 45: the EU cookie banner covered the bar (both fixed at the bottom).
  test('the pay bar sits above the cookie banner while the banner is shown', async ({ page, context, baseURL }) => {
    const url = baseURL ?? 'http://127.0.0.1';
    await context.addCookies(['show_eu_cookie_directive=1', 'euro_redirect=1', 'ff_currency_choice=USD'].map((c) => {
      const [name, value] = c.split('=');
      return { name: name!, value: value!, url };
    }));
    await openBuy(page);
    const banner = page.getByRole('region', { name: 'Cookie notice' });
    const bar = page.getByTestId('paybar');
    await expect(banner).toBeVisible();
    await expect(bar).toBeVisible();
    await expect
      .poll(async () => {
        const b = (await bar.boundingBox())!;
        const c = (await banner.boundingBox())!;
        return Math.round(b.y + b.height) <= Math.round(c.y) + 1;
      })
      .toBe(true);
    await banner.getByRole('button', { name: 'Close' }).click();
    await expect.poll(async () => Math.round(((await bar.boundingBox())?.y ?? 0) + ((await bar.boundingBox())?.height ?? 0))).toBe(page.viewportSize()!.height);
  });

  test('/buy with its default sections stays within 5,500 px on a phone (the issue measured 6,300)', async ({ page }) => {
    await openBuy(page);
    await expect(page.locator('#section-addOns input[type=checkbox]').first()).toBeVisible();
    // The default sections (spec 000 §2: plans, regions with the coverage map, add-ons) open;
    // 5,422 px with the authorisation sentence, the terms and the phone's total beside Pay.
    await expect(page.getByTestId('coverage-map')).toBeVisible();
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThanOrEqual(5500);
  });
});

test.describe('promo codes and re-pricing', () => {
  test('WELCOME5 stays applied through 12 re-prices in a minute, and the order goes through', async ({ page }) => {
    await openBuy(page);
    await page.getByTestId('payment').scrollIntoViewIfNeeded();
    await page.locator('input[name="email"]').first().fill(freshEmail('welcome5'));
    await page.getByLabel('Promo or gift certificate code').fill('WELCOME5');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByTestId('applied-code')).toHaveText('WELCOME5');
    const total = page.getByTestId('invoice-total');
    await expect(total).toHaveText('$189.99');
    const synVis = page.locator('#section-addOns').getByRole('checkbox', { name: /^Synthetic Vision/ });
    for (let i = 1; i <= 12; i++) {
      await synVis.setChecked(i % 2 === 1);
      // Synthetic Vision is $25: 5 % off $224.99 or $199.99, never the frozen earlier total.
      await expect(total).toHaveText(i % 2 === 1 ? '$213.74' : '$189.99');
      await expect(page.getByTestId('invoice-error')).toHaveCount(0);
    }
    await fillCard(page, '4111111111111111');
    await purchase(page);
    await expect(page).toHaveURL(/\/buy\/success\?invoiceId=/, { timeout: 30_000 });
    await expect(page.getByTestId('receipt-total')).toHaveText('$189.99');
    // Issue 31 item 7: the success page leads on (a guest's order created the account).
    const next = page.getByTestId('next-steps');
    await expect(next.getByRole('link', { name: 'Set your password' })).toHaveAttribute('href', '/account/set-password');
    await expect(next.getByRole('link', { name: 'Manage your subscription' })).toHaveAttribute('href', '/account');
    await expect(next.getByRole('link', { name: /Download Hangar/ })).toBeVisible();
    await expect(next.getByRole('button', { name: 'Print receipt' })).toBeVisible();
    await expectAccessible(page, 'success page next steps');
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByTestId('receipt')).toBeVisible();
    await expect(next).toBeHidden();
  });

  test('a failed re-pricing shows its reason instead of the last total, and Purchase waits', async ({ page }) => {
    await openBuy(page);
    await expect(page.getByTestId('invoice-total')).toHaveText('$199.99');
    await page.route('**/buy/api/invoice/preview', (route) =>
      route.fulfill({ status: 429, contentType: 'application/json', body: JSON.stringify({ code: 'resource_exhausted', message: 'Too many promo or gift code attempts. Please wait a minute and try again.' }) }),
    );
    await page.locator('#section-addOns').getByRole('checkbox', { name: /^Synthetic Vision/ }).check();
    await expect(page.getByTestId('invoice-error')).toHaveText('Too many promo or gift code attempts. Please wait a minute and try again.');
    await expect(page.getByTestId('invoice-total')).toHaveCount(0);
    await expect(page.getByRole('button', { name: PURCHASE })).toBeDisabled();
    await page.unroute('**/buy/api/invoice/preview');
    await page.locator('#section-addOns').getByRole('checkbox', { name: /^Synthetic Vision/ }).uncheck();
    await expect(page.getByTestId('invoice-total')).toHaveText('$199.99');
    await expect(page.getByRole('button', { name: PURCHASE })).toBeEnabled();
  });
});

test.describe('print', () => {
  // An EU visitor (heise.de's address through the dev edge's trusted X-Forwarded-For) sees the cookie banner.
  test.use({ extraHTTPHeaders: { 'X-Forwarded-For': '193.99.144.80' } });
  test('a printed page has no cookie banner, header, navigation or footer', async ({ page }) => {
    await page.goto('/buy/success?invoiceId=unknown');
    await expect(page.locator('[data-remote="buy"]')).toBeVisible();
    await expect(page.getByTestId('cookie-banner')).toBeVisible();
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByTestId('cookie-banner')).toBeHidden();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
    await expect(page.locator('footer')).toBeHidden();
    await expect(page.locator('[data-remote="buy"] h1')).toBeVisible();
  });
});

test.describe('one truth between /pricing, /buy and checkout', () => {
  test('every plan × feature cell of /pricing is what /buy shows and what checkout charges', async ({ page }) => {
    await page.goto('/pricing');
    const table = page.getByTestId('comparison');
    await expect(table).toBeVisible();
    const plans = await table.locator('thead th[data-plan]').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-plan')!));
    expect(plans.length).toBe(3);
    // Feature rows: the rows after "What you get", "Regions" and "Devices per licence".
    const rows = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.slice(3).map((tr) => ({ title: (tr.querySelector('th')?.textContent ?? '').replace(/\s*i$/, '').trim(), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '') })),
    );
    expect(rows.length).toBeGreaterThan(0);

    await page.request.get('/buy/api/me');
    const xsrf = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
    let counter = 0;
    for (const [i, plan] of plans.entries()) {
      await page.goto(`/buy?addOns=${plan}&currency=USD`);
      await expect(page.locator(`#plan-${plan}`)).toBeChecked();
      await expect(page.getByTestId('invoice-total')).toBeVisible();
      for (const row of rows) {
        const cell = row.cells[i]!;
        const option = page.locator('#section-addOns [data-addon]').filter({ hasText: row.title }).first();
        const code = (await option.getAttribute('data-addon'))!;
        const onBuy = (await page.getByTestId(`price-${code}`).textContent())?.trim();
        const r = await page.request.post('/buy/api/invoice/preview', {
          headers: { 'X-XSRF-TOKEN': xsrf },
          data: { currency: 'USD', addOns: [plan, code], cartId: 'e2e-one-truth', counter: ++counter },
        });
        expect(r.ok(), await r.text()).toBeTruthy();
        const preview = (await r.json()) as { addOns?: string[]; invoice?: { invoiceItems?: Array<{ addOnCode?: string; amountInCents?: number | string }> }; adjustments?: Array<{ addOnCode?: string; reason?: string }> };
        const line = preview.invoice?.invoiceItems?.find((l) => l.addOnCode === code);
        const reason = preview.adjustments?.find((a) => a.addOnCode === code)?.reason ?? '';
        const where = `${plan} × ${row.title}: /pricing "${cell}", /buy "${onBuy}"`;
        if (cell === 'Included') {
          expect(onBuy, where).toBe('Included');
          expect(line, where).toBeUndefined();
          expect(reason, where).toMatch(/is included with/);
        } else if (cell === 'Not available') {
          expect(onBuy, where).toBe('Not available');
          expect(line, where).toBeUndefined();
          expect(reason, where).toMatch(/is not available with/);
        } else {
          const price = cell.replace(/^Add-on, /, '');
          expect(onBuy, where).toBe(price);
          expect(line, where).toBeDefined();
          expect(Number(line!.amountInCents), where).toBe(Math.round(Number(price.replace(/[^\d.]/g, '')) * 100));
        }
      }
    }
  });
});
