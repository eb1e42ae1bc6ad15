// k6 load test of the login under a flood (issue 41 item 2), against the real stack: each VU
// is one client address (k6 binds its connections to LOCAL_IPS, one loopback address per
// VU, as the Go test services/identity/app/flood_test.go does), so the per-address limits
// and the hash pool's fair queue see 100 and 60 different clients.
//
//   k6 run -e BASE_URL=http://127.0.0.1:18180 --local-ips 127.0.20.1-127.0.20.254 loadtest/login.js
//
// Scenarios, one after the other (startTime; the pauses only order the phases, no check
// depends on how long anything takes):
//   prepare  100 VUs, one iteration each: create the account k6-<run>-<i>@load.test (a
//            password hash each, at the stack's argon2id cost).
//   burst    100 VUs at once, one correct login each from its own address.
//            Target: at least 95 of 100 succeed (burst_login_ok).
//   known    20 VUs: a first login from each device (the device cookie the answer sets),
//            then, while the flood runs, a correct login from the same device.
//            Target: at least 19 of 20 succeed (known_device_login_ok).
//   flood    60 VUs send wrong passwords, for made-up e-mails and for the 20 accounts, for
//            FLOOD_DURATION.
// Cookies are carried by hand: the device cookie is __Secure- and the stack is plain http.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Rate } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8080';
const PASSWORD = 'k6 correct horse battery staple';
const PEOPLE = 100;
const KNOWN = 20;
const FLOOD_DURATION = __ENV.FLOOD_DURATION || '40s';
const XSRF = 'k6-xsrf-token';

const burstOK = new Rate('burst_login_ok');
const knownOK = new Rate('known_device_login_ok');
const floodAnswers = new Counter('flood_answers');

export const options = {
  scenarios: {
    prepare: { executor: 'per-vu-iterations', vus: PEOPLE, iterations: 1, exec: 'prepare', maxDuration: '5m' },
    burst: { executor: 'per-vu-iterations', vus: PEOPLE, iterations: 1, exec: 'burst', startTime: __ENV.BURST_AT || '60s', maxDuration: '5m' },
    flood: { executor: 'constant-vus', vus: 60, duration: FLOOD_DURATION, exec: 'flood', startTime: __ENV.FLOOD_AT || '150s' },
    known: { executor: 'per-vu-iterations', vus: KNOWN, iterations: 1, exec: 'known', startTime: __ENV.FLOOD_AT || '150s', maxDuration: '5m' },
  },
  thresholds: {
    burst_login_ok: ['rate>=0.95'],
    known_device_login_ok: ['rate>=0.95'],
  },
  summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
};

// setup runs once; every VU's init would read its own clock.
export function setup() {
  return { run: __ENV.RUN || String(Date.now()) };
}

const email = (data, i) => `k6-${data.run}-${i}@load.test`;

function post(path, body, cookies = {}) {
  const jar = Object.entries({ 'XSRF-TOKEN': XSRF, ...cookies })
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  return http.post(`${BASE_URL}${path}`, JSON.stringify(body), {
    headers: { 'Content-Type': 'application/json', 'X-XSRF-TOKEN': XSRF, Cookie: jar },
    jar: new http.CookieJar(), // none kept: each request carries exactly the cookies given
    timeout: '10m', // the hash pool queues a burst; the test counts answers, not their speed
    tags: { name: path },
  });
}

const login = (user, password, cookies) => post('/pricing/api/login', { username: user, password }, cookies);

export function prepare(data) {
  const i = exec.scenario.iterationInTest;
  const res = post('/pricing/api/create-account', { username: email(data, i), password: PASSWORD, confirmPassword: PASSWORD, is_eu: false, consent: false });
  check(res, { 'account created': (r) => r.status === 200 });
}

export function burst(data) {
  const res = login(email(data, exec.scenario.iterationInTest), PASSWORD);
  burstOK.add(res.status === 200);
  if (!check(res, { 'burst login 200': (r) => r.status === 200 }) && __ENV.DEBUG) console.log(`burst ${res.status} ${res.body}`);
}

export function known(data) {
  const i = exec.scenario.iterationInTest;
  const first = login(email(data, i), PASSWORD);
  const device = first.cookies['__Secure-hangar_device'];
  if (!check(first, { 'first login sets a device cookie': (r) => r.status === 200 && device && device.length > 0 })) {
    knownOK.add(false);
    return;
  }
  sleep(Number(__ENV.KNOWN_AFTER || 10)); // the flood is under way by then
  const res = login(email(data, i), PASSWORD, { '__Secure-hangar_device': device[0].value });
  knownOK.add(res.status === 200);
  if (!check(res, { 'known device login 200 during the flood': (r) => r.status === 200 }) && __ENV.DEBUG) console.log(`known ${res.status} ${res.body}`);
}

export function flood(data) {
  const n = exec.vu.iterationInScenario;
  const user = n % 2 === 0 ? `nobody-${exec.vu.idInTest}-${n}@load.test` : email(data, n % KNOWN);
  const res = login(user, `guess-${exec.vu.idInTest}-${n}`);
  floodAnswers.add(1, { status: String(res.status) });
}
