import { describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  AVAILABLE_PLANS_PATH,
  createApiClient,
  featureStatus,
  findEntry,
  normalizeCatalog,
  parseErrorBody,
  visibleEntries,
  unwrap,
  num,
} from './index';
import { DEFAULT_LINKS, loadLinks, loadNotices } from './purchase';
import { catalogFixture } from './testing';

/** GET /buy/api/me through the store's client. */
const me = (options: Parameters<typeof createApiClient>[0]) => unwrap(createApiClient({ baseUrl: 'http://store', ...options }).identity.GET('/buy/api/me'));

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('catalog.availablePlans', () => {
  it('calls the public path with the currency and normalises the answer', async () => {
    const fetch = vi.fn(async () => json(200, catalogFixture));
    const api = createApiClient({ fetch });
    const catalog = await api.catalog.availablePlans({ currency: 'EUR' });
    // Typed client (openapi-fetch over the OpenAPI 3 document), same origin by default.
    expect(fetch).toHaveBeenCalledWith(`${window.location.origin}${AVAILABLE_PLANS_PATH}?currency=EUR`, expect.objectContaining({ method: 'GET' }));
    expect(catalog.version).toBe('2026.11.0-test');
    expect(catalog.currencies.map((c) => c.code)).toEqual(['USD', 'CAD', 'EUR', 'GBP', 'AUD']);
    expect(findEntry(catalog, 'pro_plus')?.price.USD).toEqual({ amountInCents: 19999, included: false });
  });

  it('omits an empty currency', async () => {
    const fetch = vi.fn(async () => json(200, {}));
    await createApiClient({ fetch, baseUrl: 'http://edge/' }).catalog.availablePlans({ currency: '' });
    expect(fetch).toHaveBeenCalledWith(`http://edge${AVAILABLE_PLANS_PATH}`, expect.anything());
  });
});

describe('normalizeCatalog', () => {
  const catalog = normalizeCatalog(catalogFixture);
  it('orders visible plans by order and hides hidden ones', () => {
    expect(visibleEntries(catalog, 'INDIVIDUAL', 'USD').map((e) => e.title)).toEqual(['Starter', 'Essential', 'Premium']);
  });
  it('leaves out deprecated entries and ones not sold in the currency', () => {
    expect(visibleEntries(catalog, 'FEATURES', 'USD').map((e) => e.addOnCode)).toEqual(['vectormap', 'syn_vis', 'logbook', 'active_navlog']);
    expect(visibleEntries(catalog, 'REGIONS', 'EUR').map((e) => e.addOnCode)).toEqual(['add_geo_us', 'add_geo_eu']);
  });
  it('fills in omitted zero values', () => {
    const c = normalizeCatalog({ plans: { X: { entries: [{ addOnCode: 'a', price: { USD: {} } }, { title: 'no code' }] } } });
    expect(c.groups.X?.entries).toEqual([
      { addOnCode: 'a', title: 'a', order: 0, hidden: false, deprecated: false, price: { USD: { amountInCents: 0, included: false } } },
    ]);
    expect(c.groups.X?.title).toBe('X');
  });
  it('accepts 64-bit integers written as strings', () => {
    const c = normalizeCatalog({ plans: { X: { entries: [{ addOnCode: 'a', price: { USD: { amountInCents: '19999' as unknown as number } } }] } } });
    expect(c.groups.X?.entries[0]?.price.USD?.amountInCents).toBe(19999);
  });
  it('survives an empty body', () => {
    expect(normalizeCatalog(undefined)).toEqual({ version: '', currencies: [], groups: {} });
  });
});

describe('errors', () => {
  it('reads the one error shape', async () => {
    const body = { code: 'invalid_argument', message: 'unknown currency "XYZ"', fieldErrors: [{ field: 'currency', message: 'unknown' }] };
    const err = await me({ fetch: async () => json(400, body) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_argument', message: 'unknown currency "XYZ"', retryable: false });
    expect((err as ApiError).fieldErrors).toEqual([{ field: 'currency', message: 'unknown' }]);
  });
  it('reads a google.rpc.Status too', () => {
    expect(parseErrorBody(503, { code: 14, message: 'no healthy upstream' })).toMatchObject({ code: 'unavailable', retryable: true });
  });
  it('maps a body that is not JSON to the status', async () => {
    await expect(me({ fetch: async () => new Response('<html>Bad gateway</html>', { status: 502 }) })).rejects.toMatchObject({ status: 502, code: 'internal', retryable: true });
  });
  it('turns a network failure into a retryable unavailable error', async () => {
    await expect(me({ fetch: async () => { throw new TypeError('Failed to fetch'); } })).rejects.toMatchObject({ status: 0, code: 'unavailable', retryable: true });
  });
  it('times out a slow service', async () => {
    const slow: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    await expect(me({ fetch: slow, timeoutMs: 20 })).rejects.toMatchObject({ code: 'deadline_exceeded', retryable: true });
  });
  it('rejects a 200 that is not JSON', async () => {
    await expect(me({ fetch: async () => new Response('<!doctype html>', { status: 200 }) })).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('XSRF', () => {
  it('echoes the XSRF-TOKEN cookie on non-safe methods only', async () => {
    const fetch = vi.fn(async () => json(200, {}));
    const api = createApiClient({ fetch, baseUrl: 'http://store', cookie: () => 'a=1; XSRF-TOKEN=tok%3D1; b=2' });
    await unwrap(api.checkout.POST('/buy/api/invoice/preview', { body: { addOns: [] } }));
    await unwrap(api.identity.GET('/buy/api/me'));
    const headersOf = (i: number) => new Headers((fetch.mock.calls[i] as unknown as [string, RequestInit])[1].headers);
    expect(headersOf(0).get('X-XSRF-TOKEN')).toBe('tok=1');
    expect(headersOf(0).get('content-type')).toBe('application/json');
    expect(headersOf(1).get('X-XSRF-TOKEN')).toBeNull();
  });

  // Issue 45: a page opened straight from a mail had no cookie yet; its first post was
  // refused "Missing XSRF token" and only the second press worked.
  it('without the cookie, a safe call gets it before the first post', async () => {
    let jar = '';
    const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith('/buy/api/me')) {
        jar = 'XSRF-TOKEN=fresh';
        return json(200, { loggedIn: false });
      }
      const h = new Headers(init?.headers);
      return h.get('X-XSRF-TOKEN') === 'fresh' ? json(200, { message: 'sent' }) : json(403, { code: 'permission_denied', message: 'Missing XSRF token' });
    });
    const options = { fetch: fetch as unknown as typeof globalThis.fetch, cookie: () => jar, baseUrl: 'http://store' };
    const answer = await unwrap(createApiClient(options).identity.POST('/account/api/password/forgot', { body: { email: 'a@b.co' } }));
    expect(answer).toMatchObject({ message: 'sent' });
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

describe('XSRF cookie replaced by a concurrent first call', () => {
  // The gift page's own GET /buy/api/me and a post's safe call each got a cookie; the post
  // echoed the first, the second replaced it, and the post was refused "XSRF token mismatch".
  it('the refused post is sent once more with the cookie now held', async () => {
    let jar = 'XSRF-TOKEN=first';
    const sent: string[] = [];
    const fetch = vi.fn(async (_input: string | URL | Request, init?: RequestInit) => {
      const token = new Headers(init?.headers).get('X-XSRF-TOKEN') ?? '';
      sent.push(token);
      if (token === 'first') {
        jar = 'XSRF-TOKEN=second';
        return json(403, { code: 'permission_denied', message: 'XSRF token mismatch: reload the page and try again.' });
      }
      return json(200, { status: 'ok' });
    });
    const options = { fetch: fetch as unknown as typeof globalThis.fetch, cookie: () => jar, baseUrl: 'http://store' };
    const answer = await unwrap(createApiClient(options).identity.POST('/account/api/password/forgot', { body: { email: 'a@b.co' } }));
    expect(answer).toMatchObject({ status: 'ok' });
    expect(sent).toEqual(['first', 'second']);
  });
  it('a 403 with the same cookie is not sent again', async () => {
    const fetch = vi.fn(async () => json(403, { code: 'permission_denied', message: 'no' }));
    await expect(unwrap(createApiClient({ fetch, baseUrl: 'http://store', cookie: () => 'XSRF-TOKEN=t' }).checkout.POST('/buy/api/gift/validate', { body: {} }))).rejects.toMatchObject({ status: 403 });
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('transport failures', () => {
  // Issue 45: a page showed "POST /account/api/password/set could not be reached: Failed to fetch".
  it('the message is plain words, the wire wording only in detail', async () => {
    const fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    const options = { fetch, cookie: () => 'XSRF-TOKEN=t', baseUrl: 'http://store' };
    const err = (await unwrap(createApiClient(options).identity.POST('/account/api/password/set', { body: { token: 't', password: 'p', confirmPassword: 'p' } })).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('The store could not be reached. Check your connection and try again.');
    expect(err.message).not.toMatch(/POST|\/account|Failed to fetch/);
    expect(err.detail).toContain('Failed to fetch');
  });
  it('a timeout says so in plain words', async () => {
    const slow: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const err = (await me({ fetch: slow, timeoutMs: 20 }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe('The store did not answer in time. Please try again.');
  });
});

describe('featureStatus', () => {
  const catalog = normalizeCatalog(catalogFixture);
  const plans = visibleEntries(catalog, 'INDIVIDUAL', 'USD');
  const feature = (forPlans?: string[]) => ({ addOnCode: 'f', title: 'F', order: 0, hidden: false, deprecated: false, price: {}, forPlans });
  it.each([
    ['no forPlans: an add-on for every plan', undefined, 'basic_plus', 'addon'],
    ['listed: an add-on', ['basic_plus'], 'basic_plus', 'addon'],
    ['a lower tier buys it: included', ['basic_plus'], 'pro_plus', 'included'],
    ['two lower tiers buy it: included in Premium', ['basic_plus', 'pro_plus'], 'performance', 'included'],
    ['only higher tiers buy it: not sold with Starter', ['pro_plus', 'performance'], 'basic_plus', 'unavailable'],
    ['unknown plan', ['basic_plus'], 'mystery', 'unavailable'],
    ['no plan chosen', ['basic_plus'], undefined, 'unavailable'],
  ] as const)('%s', (_name, forPlans, plan, want) => {
    expect(featureStatus(feature(forPlans ? [...forPlans] : undefined), plan, plans)).toBe(want);
  });
});

describe('typed clients (openapi-fetch)', () => {
  it('echoes the XSRF cookie on a POST and sends the JSON body', async () => {
    const fetch = vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => json(200, { invoice: { totalInCents: 47000, counter: '3' } }));
    const api = createApiClient({ fetch, baseUrl: 'http://edge', cookie: () => 'a=b; XSRF-TOKEN=tok%2F1' });
    const r = await unwrap(api.checkout.POST('/buy/api/invoice/preview', { body: { currency: 'USD', addOns: ['performance'] } }));
    expect(r.invoice?.totalInCents).toBe(47000);
    expect(num(r.invoice?.counter)).toBe(3);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('http://edge/buy/api/invoice/preview');
    expect(new Headers(init!.headers).get('X-XSRF-TOKEN')).toBe('tok/1');
    expect(JSON.parse(String(init!.body))).toEqual({ currency: 'USD', addOns: ['performance'] });
  });

  it('turns an error answer into the one ApiError shape', async () => {
    const fetch = vi.fn(async () => json(400, { code: 'invalid_argument', message: 'bad', fieldErrors: [{ field: 'email', message: 'Please enter your email address.' }] }));
    const api = createApiClient({ fetch, baseUrl: 'http://edge' });
    const err = await unwrap(api.checkout.POST('/buy/api/invoice/validate', { body: {} })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).fieldErrors[0]!.message).toBe('Please enter your email address.');
  });

  it('reads money as a number whether the wire wrote int64 or int32', () => {
    expect(num('47000')).toBe(47000);
    expect(num(47000)).toBe(47000);
    expect(num(undefined)).toBe(0);
    expect(num('x', -1)).toBe(-1);
  });
});

describe('loadNotices', () => {
  const answer = (body: unknown, status = 200) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
  it("reads the runtime config's notices, dropping blank ones", async () => {
    expect(await loadNotices(answer({ notices: { buy: 'Prices rise on 1 March.', gift: '  ' } }))).toEqual({ buy: 'Prices rise on 1 March.' });
  });
  it('answers none when the config has no notices or does not load', async () => {
    expect(await loadNotices(answer({ remotes: {} }))).toEqual({});
    expect(await loadNotices(answer({}, 500))).toEqual({});
  });
});

describe('loadLinks', () => {
  const answer = (body: unknown, status = 200) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
  it("reads the runtime config's App Store listing and sales address", async () => {
    const links = {
      appStore: 'https://apps.apple.com/us/app/hangar/id1234567890',
      salesEmail: 'sales@example.org',
      terms: 'https://hangar-avionics.ie/terms',
      privacy: '/privacy-policy',
      refunds: 'https://hangar-avionics.ie/refunds',
    };
    expect(await loadLinks(answer({ links }))).toEqual(links);
  });
  it('keeps the default of a legal page that is neither https:// nor a path on the store', async () => {
    const got = await loadLinks(answer({ links: { terms: 'javascript:alert(1)', privacy: '//evil.ie/p', refunds: 'http://x.ie/r' } }));
    expect([got.terms, got.privacy, got.refunds]).toEqual([DEFAULT_LINKS.terms, DEFAULT_LINKS.privacy, DEFAULT_LINKS.refunds]);
  });
  it('keeps the defaults for a missing, malformed or unsafe entry, or a config that does not load', async () => {
    expect(await loadLinks(answer({ remotes: {} }))).toEqual(DEFAULT_LINKS);
    expect(await loadLinks(answer({ links: { appStore: 'javascript:alert(1)', salesEmail: 'not an address' } }))).toEqual(DEFAULT_LINKS);
    expect(await loadLinks(answer({}, 500))).toEqual(DEFAULT_LINKS);
  });
});
