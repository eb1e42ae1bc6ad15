import { expect, test } from '@playwright/test';
import { CATALOG, expectAccessible } from '../support/helpers';

test.describe('marketing site', () => {
  test('the navigation drop-downs work by keyboard and hover', async ({ page }) => {
    await page.goto('/');
    const site = page.getByRole('navigation', { name: 'Site' });
    const plans = site.getByRole('button', { name: 'Plans' });
    await expect(plans).toHaveAttribute('aria-expanded', 'false');
    await plans.focus();
    await page.keyboard.press('Enter');
    await expect(plans).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('ArrowDown');
    await expect(site.getByRole('link', { name: 'Compare plans' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(site.getByRole('link', { name: 'Buy a subscription' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(plans).toHaveAttribute('aria-expanded', 'false');
    await expect(plans).toBeFocused();

    // Hover opens; leaving closes after 300 ms unless the pointer is over the list.
    const gifts = site.getByRole('button', { name: 'Gifts' });
    await gifts.hover();
    await expect(gifts).toHaveAttribute('aria-expanded', 'true');
    await site.getByRole('link', { name: 'Gift certificates' }).hover();
    await expect(gifts).toHaveAttribute('aria-expanded', 'true');
    await page.mouse.move(5, 700);
    await expect(gifts).toHaveAttribute('aria-expanded', 'false');

    await plans.click();
    await site.getByRole('link', { name: 'Compare plans' }).click();
    await expect(page).toHaveURL(/\/pricing$/);
  });

  test('the home slider steps with its arrows by keyboard', async ({ page }) => {
    await page.goto('/');
    const slider = page.getByRole('region', { name: 'Highlights' });
    const slide = slider.getByTestId('slide');
    await expect(slide).toHaveAttribute('aria-label', '1 of 3');
    await slider.getByRole('button', { name: 'Next slide' }).focus();
    await page.keyboard.press('Enter');
    await expect(slide).toHaveAttribute('aria-label', '2 of 3');
    await page.keyboard.press('Enter');
    await expect(slide).toHaveAttribute('aria-label', '3 of 3');
    await page.keyboard.press('Enter');
    await expect(slide).toHaveAttribute('aria-label', '1 of 3');
    await slider.getByRole('button', { name: 'Previous slide' }).focus();
    await page.keyboard.press('Space');
    await expect(slide).toHaveAttribute('aria-label', '3 of 3');
  });

  test('tabs, feature toggles and zoomable images', async ({ page }) => {
    await page.goto('/');
    const pilots = page.getByRole('tab', { name: 'Pilots' });
    await pilots.focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: 'Flight departments' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tabpanel')).toContainText('Business plans');
    const toggle = page.getByRole('button', { name: 'Runway analysis' });
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(page.getByText('Take-off and landing performance')).toBeVisible();
    await page.getByRole('button', { name: 'Zoom: A route drawn across a map' }).click();
    await expect(page.getByRole('dialog', { name: 'Route planning' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('the pricing info modal steps with the arrow keys and closes with Escape', async ({ page }) => {
    await page.goto('/pricing');
    // The remote and the catalogue load first; a busy machine can take a while for both.
    await expect(page.getByTestId('comparison')).toBeVisible({ timeout: 30_000 });
    const infos = page.getByTestId('comparison').getByRole('button', { name: /^About / });
    await expect(infos.first()).toBeVisible();
    const count = await infos.count();
    expect(count).toBeGreaterThan(1);
    const firstName = ((await infos.first().getAttribute('aria-label')) ?? '').replace(/^About /, '');
    const secondName = ((await infos.nth(1).getAttribute('aria-label')) ?? '').replace(/^About /, '');
    await infos.first().focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: firstName })).toBeVisible();
    await page.keyboard.press('ArrowRight');
    await expect(dialog.getByRole('heading', { name: secondName })).toBeVisible();
    await page.keyboard.press('ArrowLeft');
    await expect(dialog.getByRole('heading', { name: firstName })).toBeVisible();
    // Tab goes round the dialog's controls and never leaves it (issue 45).
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      await expect(dialog.locator(':focus')).toHaveCount(1);
    }
    await dialog.getByRole('button', { name: 'Previous' }).click();
    await expect(dialog).toContainText(`${count} of ${count}`);
    await dialog.getByRole('button', { name: 'Next' }).click();
    await expect(dialog).toContainText(`1 of ${count}`);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(infos.first()).toBeFocused();
  });

  for (const path of ['/', '/pricing', '/privacy-policy', '/buy/sales-mode', '/buy/military', '/buy/association']) {
    test(`${path} fits a 390 px phone`, async ({ page }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      if (path === '/pricing') {
        const catalog = page.waitForResponse(CATALOG);
        await page.goto(path);
        await catalog;
        await expect(page.getByTestId('comparison')).toBeVisible();
      } else {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${path} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
    });
  }

  test('the mobile site map opens, closes and closes on resize', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    const map = page.getByRole('navigation', { name: 'Site map' });
    await expect(map).toBeVisible();
    await page.getByRole('button', { name: 'Close menu' }).click();
    await expect(map).toHaveCount(0);
    await menu.click();
    await expect(map).toBeVisible();
    await page.setViewportSize({ width: 700, height: 844 });
    await expect(map).toHaveCount(0);
  });

  test('the home background video loads, plays and fades at 1 % and 98 %; only on / from 1025 px', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/');
    const video = page.getByTestId('home-video');
    await expect(video).toHaveCount(1);
    const src = await video.getAttribute('src');
    expect(src).toMatch(/\.webm$/);
    const file = await page.request.get(new URL(src!, page.url()).toString());
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toContain('video/webm');
    expect((await file.body()).length).toBeLessThanOrEqual(300 * 1024);
    const state = () => video.evaluate((v: HTMLVideoElement) => ({ ready: v.readyState, time: v.currentTime, muted: v.muted, loop: v.loop, paused: v.paused, duration: v.duration }));
    // Loaded (HAVE_CURRENT_DATA or better) and playing: the time moves on its own.
    await expect.poll(async () => (await state()).ready).toBeGreaterThanOrEqual(2);
    const first = (await state()).time;
    await expect.poll(async () => (await state()).time).toBeGreaterThan(first);
    const s = await state();
    expect(s).toMatchObject({ muted: true, loop: true, paused: false });
    // Visible after 1 % of its length, faded out from 98 % (spec 001 §4): seek and look.
    await expect(video).toHaveClass(/mk-video--visible/);
    await video.evaluate((v: HTMLVideoElement) => {
      v.pause();
      v.currentTime = v.duration * 0.985;
    });
    await expect(video).not.toHaveClass(/mk-video--visible/);
    await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = v.duration * 0.005;
    });
    await expect(video).not.toHaveClass(/mk-video--visible/);
    await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = v.duration * 0.5;
    });
    await expect(video).toHaveClass(/mk-video--visible/);

    // Narrower than 1025 px it is removed; and it is never on other pages.
    await page.setViewportSize({ width: 1024, height: 800 });
    await expect(video).toHaveCount(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(video).toHaveCount(1);
    await page.goto('/pricing');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.locator('video')).toHaveCount(0);
  });

  test('a 1024 px wide home page has no video at all', async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.locator('video')).toHaveCount(0);
  });

  test('the header becomes sticky on scroll', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 600 });
    await page.goto('/');
    const header = page.getByTestId('marketing-header');
    await expect(header).not.toHaveClass(/sticky-show/);
    await page.mouse.wheel(0, 400);
    await expect(header).toHaveClass(/sticky-show/);
    await page.mouse.wheel(0, -2000);
    await expect(header).not.toHaveClass(/sticky-show/);
  });
});

// Issue 31 (D6p): the shell's Main bar and the marketing Site bar both showed on marketing pages.
test.describe('one navigation bar on marketing pages', () => {
  const SITE_BARS = /^(Main|Site)$/;
  for (const path of ['/', '/pricing', '/privacy-policy', '/about/privacy']) {
    test(`${path} has exactly one site navigation, and axe finds nothing`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator('main [data-remote="marketing"] h1').first()).toBeVisible();
      await expect(page.getByRole('navigation', { name: SITE_BARS })).toHaveCount(1);
      await expect(page.getByRole('navigation', { name: 'Site' })).toBeVisible();
      await expectAccessible(page, `${path} (one navigation bar)`);
    });
  }

  test('the Site bar reaches every destination the shell bar links', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('navigation', { name: 'Site' })).toBeVisible();
    const hrefs = await page.locator('nav[aria-label="Site"] a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const to of ['/pricing', '/buy', '/gift', '/account/allocation', '/account']) expect(hrefs).toContain(to);
  });

  // kiosk=true through the Site bar: sales-mode.spec.ts 'kiosk=true stays in the address while navigating'.
});
