import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';

// Clickjacking: another site must not be able to show the checkout inside a frame. The
// store's pages send CSP frame-ancestors 'none' (and X-Frame-Options DENY), so Chromium
// refuses to render /buy in a frame of a foreign origin. The foreign site is a one-page
// server on another loopback port (another origin); a page served by request interception
// would not do, as Chromium refuses that (public) page a loopback frame whatever the store
// sends (Private Network Access), and the test could not fail.
let attacker: Server;
let attackerURL = '';

test.beforeAll(async ({ baseURL }) => {
  const store = new URL('/buy', baseURL).href;
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>attacker</title><iframe id="victim" src="${store}" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerURL = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
});

test.afterAll(async () => {
  await new Promise((resolve) => attacker?.close(resolve));
});

test('the checkout refuses to render inside a foreign frame', async ({ page }) => {
  await page.goto(attackerURL);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(frame, 'the attacker page has its frame').toBeTruthy();
  await frame!.waitForLoadState('load');
  // The frame holds the browser's error page, not the store: Chromium swaps a refused
  // document for chrome-error://, with no shell root and no store title in it.
  expect(frame!.url()).toMatch(/^chrome-error:/);
  expect(await frame!.locator('#root').count()).toBe(0);
  expect(await frame!.title()).not.toContain('Hangar');
});
