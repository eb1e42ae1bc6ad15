// k6 load test of the payment path: tokenize card fields at payments' card-fields origin
// (POST FIELDS_URL/api/tokenize, never the store's origin: docs/pci-saq-a.md), then
// charge the nonce over payments' gRPC (hangar.payments.v1.PaymentsService/Charge, as
// checkout does), with a fresh idempotency key; 5 % of iterations use the declining test
// card and 5 % resend the same charge (must replay the first result, not charge twice).
// Checks assert the business outcome, not just the status.
//
//   k6 run -e SHAPE=smoke|rate -e BASE_URL=http://localhost:8080 -e FIELDS_URL=http://localhost:8081 -e GRPC_ADDR=127.0.0.1:PORT loadtest/payments.js
//   FIELDS_URL: the card-fields origin (make dev: FIELDS_ADDR, default :8081; the cluster:
//   https://<payments.fieldsHost>).
//   SHAPE=rate runs a constant RATE charges/s (default 500) for DURATION (default 30s).
//   GRPC_ADDR: payments' gRPC address (hangar-dev logs it: "service started name=payments grpc=...").
import http from 'k6/http';
import grpc from 'k6/net/grpc';
import { check, fail } from 'k6';
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const FIELDS_URL = __ENV.FIELDS_URL || 'http://localhost:8081';
const GRPC_ADDR = __ENV.GRPC_ADDR;
const SHAPE = __ENV.SHAPE || 'smoke';
const XSRF = 'k6-xsrf-token';

const shapes = {
  smoke: { vus: 2, duration: '10s' },
  rate: {
    scenarios: {
      pay: {
        executor: 'constant-arrival-rate',
        rate: Number(__ENV.RATE || 500),
        timeUnit: '1s',
        duration: __ENV.DURATION || '30s',
        preAllocatedVUs: 50,
        maxVUs: 200,
      },
    },
  },
};
if (!shapes[SHAPE]) {
  throw new Error(`unknown SHAPE ${SHAPE}; want one of ${Object.keys(shapes).join(', ')}`);
}

const chargeDuration = new Trend('charge_duration', true);
const tokenizeDuration = new Trend('tokenize_duration', true);

export const options = Object.assign(
  {
    thresholds: {
      http_req_failed: ['rate<0.001'],
      tokenize_duration: ['p(99)<50'],
      charge_duration: ['p(99)<50'],
      checks: ['rate>0.999'],
    },
    summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  },
  shapes[SHAPE],
);

const client = new grpc.Client();
let connected = false;

export function setup() {
  if (!GRPC_ADDR) fail('set GRPC_ADDR to payments gRPC address');
  const r = http.get(`${BASE_URL}/buy/api/payments/client-token`);
  if (r.status !== 200) fail(`payments not ready: ${r.status}`);
}

// The fields origin has no session and no cookies: JSON from a non-browser is enough.
const params = {
  headers: { 'Content-Type': 'application/json' },
  tags: { name: 'tokenize' },
};

export default function () {
  if (!connected) {
    client.connect(GRPC_ADDR, { plaintext: true, reflect: true });
    connected = true;
  }
  const roll = Math.random();
  const declining = roll < 0.05;
  const number = declining ? '4000000000000002' : '4111111111111111';
  const tok = http.post(`${FIELDS_URL}/api/tokenize`,
    JSON.stringify({ number, cvv: '123', expirationDate: '12/2030', postalCode: '94105' }), params);
  tokenizeDuration.add(tok.timings.duration);
  if (!check(tok, { 'tokenized': (x) => x.status === 200 && String(x.json('nonce')).startsWith('tokencc_') })) return;
  const key = `k6-${exec.vu.idInTest}-${exec.scenario.iterationInTest}-${Date.now()}`;
  const req = { idempotencyKey: key, amount: 19999, currency: 'USD', nonce: tok.json('nonce'), customerId: 'k6-customer', reference: key };
  let t0 = Date.now();
  const res = client.invoke('hangar.payments.v1.PaymentsService/Charge', req, { timeout: '5s' });
  chargeDuration.add(Date.now() - t0);
  const want = declining ? 'CHARGE_STATUS_FAILED' : 'CHARGE_STATUS_CAPTURED';
  check(res, {
    'charge ok': (x) => x && x.status === grpc.StatusOK,
    'charge outcome': (x) => x && x.message && x.message.charge.status === want &&
      (!declining || x.message.charge.failureCode === 'declined'),
  });
  if (roll > 0.95 && res && res.message) {
    t0 = Date.now();
    const again = client.invoke('hangar.payments.v1.PaymentsService/Charge', req, { timeout: '5s' });
    chargeDuration.add(Date.now() - t0);
    check(again, {
      'replayed once': (x) => x && x.message && x.message.replayed === true && x.message.charge.id === res.message.charge.id,
    });
  }
}
