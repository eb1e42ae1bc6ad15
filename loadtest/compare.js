// One run, three targets, the same bytes: a bare net/http handler (loadtest/bare), the
// catalog service's own HTTP port, and the full path through the edge. Each target gets
// the same closed-model load in turn (VUS virtual users for PHASE each); the summary prints
// each throughput and the ratios the performance target is stated in.
import http from 'k6/http';
import { check } from 'k6';

const VUS = Number(__ENV.VUS || 32);
const PHASE = __ENV.PHASE || '20s';
const PATH = '/account/api/subscription/available/add-ons';
const targets = { bare: __ENV.BARE_URL, service: __ENV.SERVICE_URL, edge: __ENV.EDGE_URL };

const seconds = (d) => Number(d.replace('s', ''));
export const options = { scenarios: {}, summaryTrendStats: ['avg', 'med', 'p(95)', 'p(99)', 'max'], thresholds: {} };
Object.keys(targets).forEach((name, i) => {
  options.scenarios[name] = {
    executor: 'constant-vus', vus: VUS, duration: PHASE, exec: 'hit',
    startTime: `${i * (seconds(PHASE) + 2)}s`, env: { TARGET: targets[name] }, tags: { target: name },
  };
  options.thresholds[`http_reqs{target:${name}}`] = ['count>0'];
  options.thresholds[`http_req_duration{target:${name}}`] = ['p(99)>=0'];
});

export function hit() {
  // Bodies are discarded unread so the load generator, which shares the 2 cores, spends its
  // time sending requests rather than decompressing and parsing answers.
  const res = http.get(`${__ENV.TARGET}${PATH}`, { headers: { 'Accept-Encoding': 'gzip' }, responseType: 'none' });
  check(res, { '200': (r) => r.status === 200 });
}

export function handleSummary(data) {
  const rate = {};
  const lines = [];
  for (const name of Object.keys(targets)) {
    const reqs = data.metrics[`http_reqs{target:${name}}`].values.count;
    rate[name] = reqs / seconds(PHASE);
    const d = data.metrics[`http_req_duration{target:${name}}`].values;
    lines.push(`${name.padEnd(8)} ${rate[name].toFixed(0).padStart(7)} req/s   p95 ${d['p(95)'].toFixed(2)} ms   p99 ${d['p(99)'].toFixed(2)} ms`);
  }
  lines.push(`service/bare ratio ${(rate.service / rate.bare).toFixed(2)}   edge/bare ratio ${(rate.edge / rate.bare).toFixed(2)}`);
  const text = lines.join('\n') + '\n';
  return { stdout: text, [__ENV.OUT || 'loadtest/compare-result.txt']: text };
}
