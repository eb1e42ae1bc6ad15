import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

// Issue 31 item 6: the Regions section shows the coverage map (spec 001 §9) from
// GET /buy/map/api/resources, with the chosen regions highlighted; no tiles or data come from
// another host (the store's own card-fields origin is the same host on another port).
test.describe('coverage map', () => {
  test('the map shows the included region and highlights a region chosen on /buy', async ({ page, baseURL }) => {
    const host = new URL(baseURL!).hostname;
    const foreign: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== host) foreign.push(r.url());
    });
    // The outlines are the store's own (§7), read once the Regions section shows.
    const outlines = page.waitForResponse((r) => new URL(r.url()).pathname === '/buy/map/api/resources');
    await page.goto('/buy');
    const regions = page.locator('#section-regions');
    const map = regions.getByRole('img', { name: /^Coverage map:/ });
    await expect(map).toBeVisible();
    await expect(map).toHaveAttribute('aria-label', 'Coverage map: United States highlighted');
    await expect(map.locator('path[data-region="us"]')).toHaveCount(1);
    await expect(map.locator('path[data-region="eu"]')).toHaveCount(0);
    expect((await map.boundingBox())!.height).toBe(300);
    expect((await outlines).status()).toBe(200);
    // The whole world (§9 bounds): 360° of land across the map's width (2:1, so the width of
    // the map beside the region list on a desktop, up to 600 px).
    const [land, box] = [await map.locator('path').first().boundingBox(), await map.boundingBox()];
    expect(box!.width).toBeGreaterThan(300);
    expect(land!.width).toBeGreaterThan(Math.min(box!.width, 600) * 0.95);

    await regions.getByRole('checkbox', { name: /^Europe/ }).check();
    await expect(map).toHaveAttribute('aria-label', 'Coverage map: United States, Europe highlighted');
    await expect(map.locator('path[data-region="eu"]')).toHaveCount(1);
    await expect(regions.getByRole('listitem').filter({ hasText: 'Europe' })).toBeVisible();
    const overlay = await map.locator('path[data-region="eu"]').evaluate((p) => {
      const cs = getComputedStyle(p);
      return { fillOpacity: cs.fillOpacity, strokeWidth: cs.strokeWidth, fill: cs.fill };
    });
    expect({ fillOpacity: overlay.fillOpacity, strokeWidth: overlay.strokeWidth }).toEqual({ fillOpacity: '0.5', strokeWidth: '2px' });
    // Green: the green channel leads.
    const [r, g, b] = (overlay.fill.match(/\d+/g) ?? []).map(Number);
    expect(g!).toBeGreaterThan(r! + 40);
    expect(g!).toBeGreaterThan(b! + 40);

    await regions.getByRole('checkbox', { name: /^Europe/ }).uncheck();
    await expect(map.locator('path[data-region="eu"]')).toHaveCount(0);

    const axe = await new AxeBuilder({ page }).include('#section-regions').analyze();
    expect(axe.violations).toEqual([]);
    expect(foreign).toEqual([]);
  });

  test('GET /buy/map/api/resources answers cacheable GeoJSON', async ({ request }) => {
    const res = await request.get('/buy/map/api/resources');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('application/geo+json');
    expect(res.headers()['cache-control']).toContain('max-age=');
    const etag = res.headers()['etag']!;
    expect(etag).toBeTruthy();
    const body = (await res.json()) as { type: string; features: { id: string }[] };
    expect(body.type).toBe('FeatureCollection');
    expect(body.features.map((f) => f.id)).toEqual(expect.arrayContaining(['land', 'us', 'ca', 'eu']));
    const again = await request.get('/buy/map/api/resources', { headers: { 'If-None-Match': etag } });
    expect(again.status()).toBe(304);
  });
});
