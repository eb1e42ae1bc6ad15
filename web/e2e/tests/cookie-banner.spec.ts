import { expect, test, type BrowserContext } from '@playwright/test';

/** heise.de (Germany) and a US address, presented through the dev edge's trusted X-Forwarded-For. */
const EU_ADDRESS = '193.99.144.80';
const US_ADDRESS = '8.8.8.8';

async function cookie(ctx: BrowserContext, name: string) {
  return (await ctx.cookies()).find((c) => c.name === name);
}

test.describe('cookie banner and location', () => {
  test('an EU visitor sees the banner; Close sets the flag to 0 and it stays closed', async ({ browser }) => {
    const ctx = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': EU_ADDRESS } });
    const page = await ctx.newPage();
    const lookup = page.waitForResponse((r) => r.url().includes('/freegeoip/api/json/'));
    await page.goto('/');
    expect(await (await lookup).json()).toMatchObject({ location: { is_eu: true, country_code: 'DE' }, currency: { code: 'EUR' } });

    const banner = page.getByRole('region', { name: 'Cookie notice' });
    await expect(banner).toBeVisible();
    await expect(banner.getByRole('link', { name: 'privacy policy' })).toHaveAttribute('href', '/privacy-policy');
    // Fixed at the bottom of the viewport.
    const box = (await banner.boundingBox())!;
    expect(Math.round(box.y + box.height)).toBe(page.viewportSize()!.height);

    const flag = await cookie(ctx, 'show_eu_cookie_directive');
    expect(flag?.value).toBe('1');
    expect(flag?.path).toBe('/');
    const days = (flag!.expires * 1000 - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect((await cookie(ctx, 'euro_redirect'))?.value).toBe('1');
    expect((await cookie(ctx, 'ff_currency_choice'))?.value).toBe('EUR');

    await banner.getByRole('button', { name: 'Close' }).click();
    await expect(banner).toBeHidden();
    expect((await cookie(ctx, 'show_eu_cookie_directive'))?.value).toBe('0');

    // All three cookies exist now: no lookup, no banner.
    let looked = false;
    page.on('request', (r) => {
      if (r.url().includes('/freegeoip/')) looked = true;
    });
    await page.goto('/pricing');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(banner).toBeHidden();
    expect(looked).toBe(false);
    await ctx.close();
  });

  test('a US visitor does not see the banner', async ({ browser }) => {
    const ctx = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': US_ADDRESS } });
    const page = await ctx.newPage();
    const lookup = page.waitForResponse((r) => r.url().includes('/freegeoip/api/json/'));
    await page.goto('/');
    expect(await (await lookup).json()).toMatchObject({ location: { is_eu: false, country_code: 'US' }, currency: { code: 'USD' } });
    await expect.poll(async () => (await cookie(ctx, 'show_eu_cookie_directive'))?.value).toBe('0');
    expect((await cookie(ctx, 'ff_currency_choice'))?.value).toBe('USD');
    await expect(page.getByRole('region', { name: 'Cookie notice' })).toHaveCount(0);
    await ctx.close();
  });

  test('the banner shows when the lookup fails', async ({ browser }) => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.route('**/freegeoip/api/json/**', (r) => r.fulfill({ status: 503, body: '{}' }));
    await page.goto('/');
    await expect(page.getByRole('region', { name: 'Cookie notice' })).toBeVisible();
    expect((await cookie(ctx, 'show_eu_cookie_directive'))?.value).toBe('1');
    expect(await cookie(ctx, 'ff_currency_choice')).toBeUndefined();
    await ctx.close();
  });
});
