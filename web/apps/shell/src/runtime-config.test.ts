import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG, loadRuntimeConfig, parseRuntimeConfig, resolveEntry } from './runtime-config';

describe('parseRuntimeConfig', () => {
  it('defaults to same-origin relative entries', () => {
    expect(DEFAULT_CONFIG.remotes.buy).toBe('/remotes/buy/remoteEntry.js');
    expect(Object.values(DEFAULT_CONFIG.remotes).every((u) => u.startsWith('/remotes/'))).toBe(true);
  });
  it('takes valid entries over the defaults', () => {
    const { config, problems } = parseRuntimeConfig({
      remotes: { buy: 'https://cdn.example.com/buy/remoteEntry.js', gift: '/other/gift.js' },
    });
    expect(problems).toEqual([]);
    expect(config.remotes.buy).toBe('https://cdn.example.com/buy/remoteEntry.js');
    expect(config.remotes.gift).toBe('/other/gift.js');
    expect(config.remotes.oneoff).toBe('/remotes/oneoff/remoteEntry.js');
  });
  it('rejects script URLs and unknown remotes', () => {
    const { config, problems } = parseRuntimeConfig({ remotes: { buy: 'javascript:alert(1)', evil: '/x.js', gift: 42 } });
    expect(config).toEqual(DEFAULT_CONFIG);
    expect(problems).toHaveLength(3);
  });
  it('survives junk', () => {
    expect(parseRuntimeConfig(null).config).toEqual(DEFAULT_CONFIG);
    expect(parseRuntimeConfig({ remotes: 'x' }).config).toEqual(DEFAULT_CONFIG);
  });
  it('resolves relative entries against the page', () => {
    expect(resolveEntry('/remotes/buy/remoteEntry.js', 'http://127.0.0.1:18080/buy?currency=EUR')).toBe(
      'http://127.0.0.1:18080/remotes/buy/remoteEntry.js',
    );
  });
});

describe('loadRuntimeConfig', () => {
  it('reads /config.json', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ remotes: { buy: '/b.js' } })));
    const config = await loadRuntimeConfig(fetch, 'http://localhost/');
    expect(fetch).toHaveBeenCalledWith('/config.json', expect.anything());
    expect(config.remotes.buy).toBe('/b.js');
  });
  it('falls back to the defaults when the edge answers index.html (SPA fallback) or fails', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await loadRuntimeConfig(async () => new Response('<!doctype html>'), 'http://localhost/')).toEqual(DEFAULT_CONFIG);
    expect(await loadRuntimeConfig(async () => new Response('', { status: 404 }), 'http://localhost/')).toEqual(DEFAULT_CONFIG);
    expect(
      await loadRuntimeConfig(async () => {
        throw new TypeError('offline');
      }, 'http://localhost/'),
    ).toEqual(DEFAULT_CONFIG);
  });
});
