// k6 load test of the catalogue: the buy page's first read (available plans), the price
// lookups the configurator makes, and a revalidation with the ETag, as one user journey.
// Shapes differ only in options; thresholds are the SLOs; checks assert business content.
//
//   k6 run -e SHAPE=smoke|load|stress|spike|soak|rate -e BASE_URL=http://localhost:8080 loadtest/catalog.js
//   SHAPE=rate runs a constant 1,000 requests/s of the plans read (RATE, DURATION to change).
import http from 'k6/http';
import { check, fail } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const SHAPE = __ENV.SHAPE || 'smoke';
const PLANS = `${BASE_URL}/account/api/subscription/available/add-ons`;

const shapes = {
  smoke: { vus: 2, duration: '15s' },
  load: {
    stages: [
      { duration: '30s', target: 50 },
      { duration: '2m', target: 50 },
      { duration: '30s', target: 0 },
    ],
  },
  stress: {
    stages: [
      { duration: '1m', target: 100 },
      { duration: '2m', target: 200 },
      { duration: '1m', target: 0 },
    ],
  },
  spike: {
    stages: [
      { duration: '10s', target: 10 },
      { duration: '10s', target: 400 },
      { duration: '30s', target: 400 },
      { duration: '10s', target: 10 },
    ],
  },
  soak: { vus: 30, duration: __ENV.DURATION || '30m' },
  rate: {
    scenarios: {
      plans: {
        executor: 'constant-arrival-rate',
        rate: Number(__ENV.RATE || 1000),
        timeUnit: '1s',
        duration: __ENV.DURATION || '30s',
        preAllocatedVUs: 50,
        maxVUs: 200,
        exec: 'plansOnly',
      },
    },
  },
};

if (!shapes[SHAPE]) {
  throw new Error(`unknown SHAPE ${SHAPE}; want one of ${Object.keys(shapes).join(', ')}`);
}

export const options = Object.assign(
  {
    thresholds: {
      http_req_failed: ['rate<0.001'],
      checks: ['rate>0.999'],
      'http_req_duration{name:plans}': ['p(95)<25', 'p(99)<50'],
      'http_req_duration{name:prices}': ['p(95)<50', 'p(99)<100'],
    },
    summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  },
  shapes[SHAPE],
);
if (SHAPE === 'rate') {
  options.thresholds = {
    http_req_failed: ['rate<0.001'],
    checks: ['rate>0.999'],
    'http_req_duration{name:plans}': ['p(99)<10'],
    // k6 may drop a few iterations while it starts VUs; more than 1% means the server fell behind.
    dropped_iterations: ['count<300'],
  };
}

export function setup() {
  const res = http.get(PLANS);
  if (res.status !== 200) {
    fail(`the catalogue is not ready at ${PLANS}: status ${res.status}`);
  }
  return { etag: res.headers['Etag'] || res.headers['ETag'] };
}

function plansRead(etag) {
  const headers = { 'Accept-Encoding': 'gzip' };
  if (etag) headers['If-None-Match'] = etag;
  const res = http.get(PLANS, { headers, tags: { name: 'plans' } });
  if (etag) {
    check(res, { 'revalidation answers 304': (r) => r.status === 304 });
    return;
  }
  check(res, {
    'plans 200': (r) => r.status === 200,
    'Essential is $199.99': (r) => {
      const essential = r.json('plans.INDIVIDUAL.entries').find((e) => e.addOnCode === 'pro_plus');
      return essential && essential.price.USD.amountInCents === 19999;
    },
    'regions are listed': (r) => r.json('plans.REGIONS.entries').some((e) => e.addOnCode === 'add_geo_eu'),
  });
}

// The constant-rate shape measures the server, not k6: bodies are not read (a 2-core
// machine cannot both parse 1,000 answers a second and serve them); content is checked on
// the catalogue version header, and fully by the other shapes.
export function plansOnly() {
  const res = http.get(PLANS, { headers: { 'Accept-Encoding': 'gzip' }, responseType: 'none', tags: { name: 'plans' } });
  check(res, { 'plans 200 with a catalogue version': (r) => r.status === 200 && !!r.headers['X-Catalog-Version'] });
}

export default function (data) {
  plansRead();
  const prices = http.get(
    `${BASE_URL}/buy/api/subscription/add-on-prices?addOnCodes=performance,add_geo_eu&currency=EUR`,
    { tags: { name: 'prices' } },
  );
  check(prices, {
    'prices 200': (r) => r.status === 200,
    'Premium is €344': (r) => r.json('prices').find((p) => p.addOnCode === 'performance').amountInCents === 34400,
  });
  const bad = http.get(`${BASE_URL}/buy/api/subscription/add-on-prices?addOnCodes=performance&currency=XYZ`, {
    tags: { name: 'bad_currency' },
    responseCallback: http.expectedStatuses(400),
  });
  check(bad, { 'unknown currency is a 400 naming it': (r) => r.status === 400 && r.body.includes('XYZ') });
  plansRead(data.etag);
}
