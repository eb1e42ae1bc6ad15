import { expect, test } from '@playwright/test';

// Spec 001 §2: /gift/{value}/{email} opens the gift page with the value and the e-mail
// filled in. A real address has a dot in its last path segment, which the edge served as a
// missing static file (404 text/plain); static files come only from the asset paths now
// (internal/edge assetPath), and a missing asset is still a 404 (issue 42 item 5).

for (const email of ['pat.pilot@example.com', 'a.b.c@mail.example.co.uk', 'pilot+fleet@hangar.io']) {
  test(`/gift/250/${email} shows the gift page filled in`, async ({ page }) => {
    test.setTimeout(120_000); // the remote loads slowly on a shared, busy machine
    const res = await page.goto(`/gift/250/${encodeURIComponent(email).replace(/%40/g, '@')}`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toContain('text/html');
    await expect(page.getByLabel('Certificate 1 amount')).toHaveValue('250', { timeout: 60_000 });
    await expect(page.getByLabel('Email Address')).toHaveValue(email);
  });
}

test('a missing asset under the gift path is still a 404', async ({ page }) => {
  const res = await page.request.get('/gift/assets/missing-0000.js');
  expect(res.status()).toBe(404);
});
