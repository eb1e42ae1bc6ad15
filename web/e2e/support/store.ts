import { expect, type Page } from '@playwright/test';

/** Demo accounts seeded by `make dev` (services/identity/app/seed.go). */
export const DEMO_PASSWORD = 'hangar-demo-pass';
export const CARD_ADMIN = 'cardadmin@demo.hangar.test';

/**
 * Logs the page's browser in as the page would: the XSRF cookie from any identity answer,
 * then the login call with the header, from inside the page so the browser keeps the
 * session cookie.
 */
export async function login(page: Page, username: string, password = DEMO_PASSWORD): Promise<void> {
  if (page.url() === 'about:blank') await page.goto('/pricing');
  const status = await page.evaluate(
    async ([u, p]) => {
      await fetch('/buy/api/me', { credentials: 'same-origin' });
      const m = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]*)/);
      const res = await fetch('/pricing/api/login', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-XSRF-TOKEN': m ? decodeURIComponent(m[1]!) : '' },
        body: JSON.stringify({ username: u, password: p }),
      });
      return res.status;
    },
    [username, password] as const,
  );
  expect(status, `login as ${username}`).toBe(200);
}

/** A fresh address for a test run, so runs on one database never collide. */
export function uniqueEmail(prefix: string, domain: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@${domain}`;
}
