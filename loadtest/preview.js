// k6 load test of the invoice preview (POST /buy/api/invoice/preview) with a realistic mix
// of configurations: new individual carts (most traffic), business carts at several
// quantities, chart coverages on both platforms, Canadian and US tax, EU VAT with and
// without a business id, military and bundle carts, and renewals/plan changes of the seeded
// subscribers (these read the database). Checks assert business content, not just 200.
//
//   k6 run -e SHAPE=smoke|rate -e BASE_URL=http://localhost:8080 loadtest/preview.js
//   SHAPE=rate runs a constant RATE previews/s (default 1000) for DURATION (default 30s).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const SHAPE = __ENV.SHAPE || 'smoke';
const URL = `${BASE_URL}/buy/api/invoice/preview`;

const shapes = {
  smoke: { vus: 2, duration: '10s' },
  rate: {
    scenarios: {
      preview: {
        executor: 'constant-arrival-rate',
        rate: Number(__ENV.RATE || 1000),
        timeUnit: '1s',
        duration: __ENV.DURATION || '30s',
        preAllocatedVUs: 60,
        maxVUs: 300,
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
      http_req_duration: ['p(99)<25'],
      checks: ['rate>0.999'],
    },
    summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  },
  shapes[SHAPE],
);

// [weight, configuration, expected subtotal (or null to only check the shape)]
const mix = [
  [30, { currency: 'USD', addOns: ['performance', 'add_geo_eu'] }, 47000],
  [15, { currency: 'USD', addOns: ['pro_plus', 'included_geo_us'], billingInfo: { zipcode: '94105', country: 'US' } }, 19999],
  [10, { currency: 'EUR', addOns: ['performance', 'included_geo_eu', 'add_geo_us'], billingInfo: { country: 'DE' } }, 43700],
  [5, { currency: 'EUR', addOns: ['pro_plus', 'included_geo_eu'], businessIdentificationNo: 'FR12345678901', billingInfo: { country: 'FR' } }, 18599],
  [8, { currency: 'USD', addOns: ['business_pro', 'included_geo_us', 'efb_bridge'], quantity: 12 }, 12 * 23700 + 30000],
  [5, { currency: 'CAD', addOns: ['basic_plus', 'included_geo_ca', 'logbook'], billingInfo: { zipcode: 'H2X 1Y4', country: 'CA' } }, 16900 + 6800],
  [7, { currency: 'USD', addOns: ['pro_plus', 'included_geo_us', 'jepp_us', 'jepp_us_web', 'jepp_north_america'] }, null],
  [5, { military: true, addOns: ['mfb_pro'], quantity: 3 }, 60000],
  [3, { hjopaBundle: true, addOns: ['honda_jet_bundle_elite'] }, 317560],
  [5, { currency: 'GBP', addOns: ['hangar_basic_plus_three_month', 'included_geo_eu'] }, 3999],
  [4, { accountId: '00000000-0000-4000-8000-000000000001', addOns: ['pro_plus', 'included_geo_us', 'add_geo_eu'] }, null],
  [3, { accountId: '00000000-0000-4000-8000-000000000002', quantity: 8 }, null],
];
const total = mix.reduce((s, m) => s + m[0], 0);
const bodies = mix.map((m) => [m[0], JSON.stringify(m[1]), m[2]]);
// Non-safe requests need the XSRF pair, as a browser sends it (cookie echoed in the header);
// without it every preview is refused with 403.
const XSRF = 'k6-xsrf-token';
const params = {
  headers: { 'Content-Type': 'application/json', 'X-XSRF-TOKEN': XSRF, Cookie: `XSRF-TOKEN=${XSRF}` },
  tags: { name: 'preview' },
};

export default function () {
  let r = Math.random() * total;
  let pick = bodies[0];
  for (const b of bodies) {
    r -= b[0];
    if (r < 0) {
      pick = b;
      break;
    }
  }
  const res = http.post(URL, pick[1], params);
  check(res, {
    'status 200': (x) => x.status === 200,
    'priced': (x) => {
      const inv = x.json('invoice');
      if (!inv || inv.subtotalInCents === undefined || !x.json('quoteId')) return false;
      return pick[2] === null || inv.subtotalInCents === pick[2];
    },
  });
}
