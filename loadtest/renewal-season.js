// k6 load test of renewal season: the store's traffic mix at once, each journey made as a
// browser makes it, with the journeys' SLOs (docs/reliability.md) as thresholds.
//
//   catalogue  GET the plans and add-on prices (the pricing pages)
//   preview    POST /buy/api/invoice/preview with the mix of carts people price
//   login      a subscriber logs in, reads /buy/api/me, the subscription and its renewal
//              price, and logs out
//   submit     a new buyer: tokenize → preview → submit, which answers the receipt (Premium + US + Europe)
//   gift       tokenize → gift submit (370 + 40, to a recipient) → receipt
//   oneoff     a logged-in subscriber pays a staff-made one-off cart → receipt
//
// Browser-like XSRF: every visitor first loads a page (GET /buy/api/me), which sets the
// XSRF-TOKEN cookie; non-safe calls echo it in X-XSRF-TOKEN. A login replaces it with the
// session-bound token (auth.SessionXSRF), which the following calls echo. The script keeps
// each visitor's cookies itself (k6's jar is one per VU, shared by every visitor the VU
// plays). Submits carry an Idempotency-Key per purchase.
//
//   k6 run -e BASE_URL=http://localhost:8080 [-e FIELDS_URL=http://localhost:8081] [-e DURATION=60s] [-e SCALE=1] loadtest/renewal-season.js
//
// Cards are tokenised at payments' card-fields origin (FIELDS_URL, make dev's FIELDS_ADDR),
// as the hosted fields do, never at the store's (docs/pci-saq-a.md).
//
// SCALE multiplies every rate (the defaults fit the shared 2-core development machine:
// about 40 requests/s, 3.5 purchases/s). CHAOS=1 is the mode of scripts/chaos.sh: services
// are being killed, so the thresholds are off (the chaos run's verdict is its
// reconciliation), a failed submit is retried with the same Idempotency-Key as the web
// client does, and every order the store confirmed is logged ("order <kind> <invoiceId>")
// for the reconciliation to look for.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { Counter } from 'k6/metrics';

// The human-verification value card payments need: make dev's development verifier takes
// any value it would hand out (internal/devhuman); against reCAPTCHA, run with it off.
const HUMAN = 'dev-human-k6';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const FIELDS_URL = __ENV.FIELDS_URL || 'http://localhost:8081';
const DURATION = __ENV.DURATION || '60s';
const SCALE = Number(__ENV.SCALE || 1);
const CHAOS = __ENV.CHAOS === '1';
// Log every confirmed order ("order <kind> <invoiceId>") for a reconciliation; on in CHAOS.
const LOG_ORDERS = CHAOS || __ENV.LOG_ORDERS === '1';

const orders = new Counter('orders');
const retries = new Counter('submit_retries');

// Journeys per second at SCALE 1; [rate, timeUnit].
const rates = {
  catalogue: [20, '1s'],
  preview: [10, '1s'],
  login: [1, '1s'],
  submit: [2, '1s'],
  gift: [1, '1s'],
  oneoff: [1, '2s'],
};

function scenario(name) {
  const [rate, timeUnit] = rates[name];
  return {
    executor: 'constant-arrival-rate',
    exec: name,
    rate: Math.max(1, Math.round(rate * SCALE)),
    timeUnit,
    duration: DURATION,
    preAllocatedVUs: Math.max(2, Math.ceil(rate * SCALE * 2)),
    maxVUs: Math.max(10, Math.ceil(rate * SCALE * 20)),
    tags: { journey: name },
  };
}

// The SLOs of docs/reliability.md: availability 99.9 % (no 5xx, no transport error) and
// the latency bound per public journey; every check true; at least one order of each kind.
const slo = {
  'http_req_failed{journey:catalogue}': ['rate<0.001'],
  'http_req_duration{journey:catalogue}': ['p(99)<100'],
  'http_req_failed{slo:preview}': ['rate<0.001'],
  'http_req_duration{slo:preview}': ['p(99)<250'],
  'http_req_failed{slo:login}': ['rate<0.001'],
  'http_req_duration{slo:login}': ['p(99)<500'],
  'http_req_failed{slo:submit}': ['rate<0.001'],
  'http_req_duration{slo:submit}': ['p(99)<2500'],
  'http_req_failed{slo:receipt}': ['rate<0.001'],
  'http_req_duration{slo:receipt}': ['p(99)<250'],
  http_req_failed: ['rate<0.001'],
  checks: ['rate>0.999'],
  'orders{kind:subscription}': ['count>0'],
  'orders{kind:gift}': ['count>0'],
  'orders{kind:oneoff}': ['count>0'],
};

export const options = {
  scenarios: Object.fromEntries(Object.keys(rates).map((n) => [n, scenario(n)])),
  thresholds: CHAOS ? {} : slo,
  summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  setupTimeout: '120s',
};

// ---------------------------------------------------------------------- a browser's cookies

/** A visitor: the cookies a browser would hold for the store (XSRF and session only). */
function visitor() {
  return { jar: {} };
}

function keep(v, res) {
  for (const name of ['XSRF-TOKEN', '__Host-hangar_session']) {
    const c = res.cookies[name];
    if (c && c.length > 0) {
      if (c[0].value === '' || c[0].max_age < 0) delete v.jar[name];
      else v.jar[name] = c[0].value;
    }
  }
  return res;
}

function cookieHeader(v, extra) {
  const parts = Object.entries(v.jar).map(([k, val]) => `${k}=${val}`);
  if (extra) parts.push(extra);
  return parts.join('; ');
}

// Each request gets an empty k6 jar: k6's own jar would send the VU's cookies to every
// later visitor of the VU (a browser per visitor is what is simulated here).
function get(v, path, tags, extraCookie) {
  return keep(v, http.get(`${BASE_URL}${path}`, { headers: { Cookie: cookieHeader(v, extraCookie) }, tags, jar: new http.CookieJar() }));
}

function post(v, path, body, tags, extraHeaders) {
  const headers = Object.assign(
    { 'Content-Type': 'application/json', 'X-XSRF-TOKEN': v.jar['XSRF-TOKEN'] || '', Cookie: cookieHeader(v) },
    extraHeaders || {},
  );
  return keep(v, http.post(`${BASE_URL}${path}`, JSON.stringify(body), { headers, tags, jar: new http.CookieJar() }));
}

/** The page load that gives a new visitor its XSRF-TOKEN cookie. */
function arrive(v) {
  const me = get(v, '/buy/api/me', { name: 'me' });
  check(me, { 'page load: XSRF cookie set': () => me.status === 200 && !!v.jar['XSRF-TOKEN'] });
  return me.status === 200;
}

function logIn(v, username, password) {
  const r = post(v, '/pricing/api/login', { username, password }, { name: 'login', slo: 'login' });
  return check(r, {
    'login: ok and session-bound XSRF': () => r.status === 200 && !!v.jar['__Host-hangar_session'] && !!v.jar['XSRF-TOKEN'],
  });
}

// ---------------------------------------------------------------------- purchases

/**
 * submitWithRetry posts a purchase with its Idempotency-Key. In the chaos mode a 5xx or a
 * transport error is retried with the same key (the web client's behaviour); the store
 * answers the first outcome, so a retry never charges twice.
 */
function submitWithRetry(v, path, body, key) {
  let r;
  let wait = 1;
  for (let attempt = 0; attempt < (CHAOS ? 30 : 1); attempt++) {
    if (attempt > 0) {
      retries.add(1);
      sleep(wait);
    }
    r = post(v, path, body, { name: path.split('/')[3] + '-submit', slo: 'submit' }, { 'Idempotency-Key': key });
    // A 5xx, no answer, and 409 ORDER_IN_PROGRESS (another attempt still holds the key) are
    // asked again with the same key after the answer's Retry-After, as the pages do.
    if (r.status !== 0 && r.status < 500 && !(r.status === 409 && reasonOf(r) === 'ORDER_IN_PROGRESS')) break;
    wait = Math.min(10, Math.max(1, Number(r.headers['Retry-After']) || 1));
  }
  return r;
}

function reasonOf(r) {
  try {
    return r.json('reason');
  } catch (e) {
    return '';
  }
}

function tokenize(v, number) {
  // The fields origin: no cookies, the page's own Origin.
  const r = http.post(`${FIELDS_URL}/api/tokenize`,
    JSON.stringify({ number: number || '4111111111111111', cvv: '123', expirationDate: '12/2030', cardholderName: 'Amelia Earhart', postalCode: '97201' }),
    { headers: { 'Content-Type': 'application/json', Origin: FIELDS_URL, 'Sec-Fetch-Site': 'same-origin' }, tags: { name: 'tokenize' }, jar: new http.CookieJar() });
  const nonce = r.status === 200 ? r.json('nonce') : '';
  check(r, { 'tokenize: nonce': () => nonce !== '' });
  return nonce;
}

/**
 * The receipt, as the paying browser gets it: a subscription's submit answers it (the
 * success page shows it as it is); a gift's and a one-off's are read with the receipt
 * cookie the submit set.
 */
function receipt(v, kind, sub, expectTotalInCents) {
  const invoiceId = sub.json('invoiceId');
  orders.add(1, { kind });
  if (LOG_ORDERS) console.log(`order ${kind} ${invoiceId}`);
  if (kind === 'subscription') {
    check(sub, {
      [`receipt (${kind}): the order's total`]: (r) => r.json('receipt.invoiceId') === invoiceId &&
        Number(r.json('receipt.totalInCents')) === expectTotalInCents,
    });
    return;
  }
  const name = `hangar_receipt_${invoiceId.replace(/-/g, '')}`;
  const c = sub.cookies[name] && sub.cookies[name][0];
  const rc = get(v, `/buy/api/receipt/${invoiceId}`, { name: 'receipt', slo: 'receipt' }, c ? `${name}=${c.value}` : '');
  check(rc, {
    [`receipt (${kind}): the order's total`]: (r) => r.status === 200 && r.json('invoiceId') === invoiceId &&
      Number(r.json('totalInCents')) === expectTotalInCents,
  });
}

function unique(tag) {
  return `season-${tag}-${__VU}-${__ITER}-${Date.now()}@load.test`;
}

// ---------------------------------------------------------------------- journeys

const cataloguePaths = [
  ['/account/api/subscription/available/add-ons', 'plans'],
  ['/account/api/subscription/available/fleet-prices', 'fleet-prices'],
  ['/buy/api/subscription/add-on-prices?addOnCodes=performance,add_geo_eu,logbook&currency=USD', 'add-on-prices'],
  ['/buy/api/subscription/scheduled-prices?quantity=10&currency=USD', 'scheduled-prices'],
];

export function catalogueJourney() {
  const [path, name] = cataloguePaths[Math.floor(Math.random() * cataloguePaths.length)];
  const r = http.get(`${BASE_URL}${path}`, { tags: { name }, jar: new http.CookieJar() });
  check(r, { 'catalogue: 200 JSON': () => r.status === 200 && r.body.length > 2 });
}
export { catalogueJourney as catalogue };

// [weight, configuration]: the carts people price. What each costs is the store's own answer
// (setup prices each once, before the load): the check is that every preview under load
// prices a cart as the store priced it at the start, so a catalogue price change never makes
// the run fail on a stale constant.
const carts = [
  [40, { currency: 'USD', addOns: ['performance', 'add_geo_eu'] }],
  [20, { currency: 'USD', addOns: ['pro_plus', 'included_geo_us'], billingInfo: { zipcode: '94105', country: 'US' } }],
  [15, { currency: 'EUR', addOns: ['performance', 'included_geo_eu', 'add_geo_us'], billingInfo: { country: 'DE' } }],
  [10, { currency: 'USD', addOns: ['business_pro', 'included_geo_us', 'efb_bridge'], quantity: 12 }],
  [10, { currency: 'CAD', addOns: ['basic_plus', 'included_geo_ca', 'logbook'], billingInfo: { zipcode: 'H2X 1Y4', country: 'CA' } }],
  [5, { military: true, addOns: ['mfb_pro'], quantity: 3 }],
];
const cartWeight = carts.reduce((s, c) => s + c[0], 0);

// The submit journey's cart (Premium + US + Europe).
const submitAddOns = ['performance', 'included_geo_us', 'add_geo_eu'];

/** The subtotal of every cart as the store prices it now: one preview each. */
function storePrices() {
  const v = visitor();
  if (!arrive(v)) throw new Error('setup: the store did not answer a page load');
  return carts.map(([, cfg], i) => {
    const r = post(v, '/buy/api/invoice/preview', cfg, { name: 'setup-preview' });
    const subtotal = r.status === 200 ? r.json('invoice.subtotalInCents') : null;
    if (typeof subtotal !== 'number') throw new Error(`setup: cart ${i} not priced: ${r.status} ${r.body}`);
    return subtotal;
  });
}

/**
 * The submit journey's total from the catalogue: the sum of the add-ons' list prices in USD
 * (an included region costs nothing), from the pricing pages' own route. No tax: the
 * journey's billing address (Oregon) has none.
 */
function catalogueTotal(addOns) {
  const r = http.get(`${BASE_URL}/buy/api/subscription/add-on-prices?addOnCodes=${addOns.join(',')}&currency=USD`, { tags: { name: 'setup-add-on-prices' } });
  if (r.status !== 200) throw new Error(`setup: add-on prices ${r.status} ${r.body}`);
  return addOns.reduce((sum, code) => sum + listPrice(r.json(), code), 0);
}

/** The price in cents of code in an add-on-prices answer; an included add-on is 0. */
function listPrice(answer, code) {
  const row = (answer.prices || []).find((x) => x.addOnCode === code);
  if (!row) throw new Error(`setup: no price for ${code} in ${JSON.stringify(answer)}`);
  return row.included ? 0 : Number(row.amountInCents || 0);
}

const anonymous = visitor(); // the preview VU's visitor: one page load, many previews
export function preview(data) {
  if (!anonymous.jar['XSRF-TOKEN'] && !arrive(anonymous)) return;
  let x = Math.random() * cartWeight;
  let pick = carts[0];
  for (const c of carts) {
    x -= c[0];
    if (x < 0) {
      pick = c;
      break;
    }
  }
  const r = post(anonymous, '/buy/api/invoice/preview', pick[1], { name: 'preview', slo: 'preview' });
  check(r, {
    'preview: priced': () => r.status === 200 && !!r.json('quoteId') &&
      r.json('invoice.subtotalInCents') === data.subtotals[carts.indexOf(pick)],
  });
}

const subscribers = ['pilot@demo.hangar.test', 'owner@acme.hangar.test', 'pilot@army.mil', 'child@demo.hangar.test'];
export function loginJourney() {
  const v = visitor();
  if (!arrive(v)) return;
  if (!logIn(v, subscribers[__ITER % subscribers.length], 'hangar-demo-pass')) return;
  const me = get(v, '/buy/api/me', { name: 'me' });
  check(me, { 'me: logged in': () => me.status === 200 && me.json('loggedIn') === true });
  const sub = get(v, '/buy/api/subscription', { name: 'subscription' });
  const id = sub.status === 200 ? sub.json('subscription.id') : '';
  if (check(sub, { 'subscription: the subscriber\'s': () => id !== '' })) {
    const rp = get(v, `/buy/api/subscription/renewal-price?subscriptionId=${id}`, { name: 'renewal-price' });
    check(rp, { 'renewal price: priced': () => rp.status === 200 && rp.json('invoice') !== null });
  }
  const out = post(v, '/pricing/api/logout', {}, { name: 'logout' });
  check(out, { 'logout: ok': () => out.status === 200 });
}
export { loginJourney as login };

export function submit(data) {
  const v = visitor();
  if (!arrive(v)) return;
  const nonce = tokenize(v);
  if (!nonce) return;
  const email = unique('sub');
  const cfg = { email, currency: 'USD', addOns: submitAddOns, billingInfo: { zipcode: '97201', country: 'US' } };
  const pv = post(v, '/buy/api/invoice/preview', cfg, { name: 'preview', slo: 'preview' });
  const quoteId = pv.status === 200 ? pv.json('quoteId') : '';
  if (!check(pv, { 'submit journey: preview at the catalogue\'s prices and a quote': () => quoteId !== '' && pv.json('invoice.totalInCents') === data.submitTotal })) return;
  const sub = submitWithRetry(v, '/buy/api/invoice/submit', Object.assign({}, cfg, { quoteId, nonce, cardholderName: 'Amelia Earhart', recaptchaValue: HUMAN }), `season-${email}`);
  if (!check(sub, { 'submit: an invoice': () => sub.status === 200 && !!sub.json('invoiceId') })) return;
  receipt(v, 'subscription', sub, data.submitTotal);
}

export function gift() {
  const v = visitor();
  if (!arrive(v)) return;
  const nonce = tokenize(v);
  if (!nonce) return;
  const email = unique('gift');
  const body = {
    giftCertValues: [370, '40'], email, zipcode: '97201', country: 'US', currency: 'USD', cardholderName: 'Amelia Earhart', nonce, recaptchaValue: HUMAN,
    recipient: { email: unique('friend'), name: 'Bessie', message: 'Happy flying' },
  };
  const sub = submitWithRetry(v, '/buy/api/gift/submit', body, `season-${email}`);
  if (!check(sub, { 'gift: an invoice and two certificates': () => sub.status === 200 && !!sub.json('invoiceId') && sub.json('certificates').length === 2 })) return;
  receipt(v, 'gift', sub, 41000);
}

// The one-off buyers are the demo pilot, logged in once in setup (one session, shared as a
// browser's tabs share it), paying the cart staff made in setup.
export function setup() {
  const staff = visitor();
  if (!arrive(staff) || !logIn(staff, 'employee@demo.hangar.test', 'hangar-demo-pass')) throw new Error('setup: staff login failed');
  const cart = post(staff, '/buy/api/cart-create', {
    requestJson: { selectedProducts: [{ code: 'oneoff_chartpack_us_vfr', quantity: 1 }, { code: 'oneoff_dbcard_garmin_sd', quantity: 2 }], applyTax: true, currency: 'USD' },
  }, { name: 'cart-create' });
  if (cart.status !== 200 || !cart.json('uuid')) throw new Error(`setup: cart-create ${cart.status} ${cart.body}`);
  const buyer = visitor();
  if (!arrive(buyer) || !logIn(buyer, 'pilot@demo.hangar.test', 'hangar-demo-pass')) throw new Error('setup: buyer login failed');
  return { cartId: cart.json('uuid'), buyerJar: buyer.jar, subtotals: storePrices(), submitTotal: catalogueTotal(submitAddOns) };
}

export function oneoff(data) {
  const v = { jar: Object.assign({}, data.buyerJar) };
  const nonce = tokenize(v);
  if (!nonce) return;
  const configuration = {
    cartId: data.cartId, currency: 'USD', billingInfo: { zipcode: '97201', country: 'US' },
    items: [{ code: 'oneoff_chartpack_us_vfr', quantity: 3 }], cardholderName: 'Amelia Earhart',
  };
  const pv = post(v, '/buy/api/oneoff/preview', configuration, { name: 'oneoff-preview', slo: 'preview' });
  if (!check(pv, { 'one-off preview: 365.00': () => pv.status === 200 && pv.json('invoice.totalInCents') === 36500 })) return;
  const sub = submitWithRetry(v, '/buy/api/oneoff/submit', { configuration: Object.assign({}, configuration, { recaptchaValue: HUMAN }), nonce }, `season-oneoff-${__VU}-${__ITER}-${Date.now()}`);
  if (!check(sub, { 'one-off: an invoice': () => sub.status === 200 && !!sub.json('invoiceId') })) return;
  receipt(v, 'oneoff', sub, 36500);
}
