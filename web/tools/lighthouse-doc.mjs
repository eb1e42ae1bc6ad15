#!/usr/bin/env node
// Writes the Lighthouse scores of the last e2e run (web/test-results/lighthouse/*.scores.json,
// from e2e/tests/lighthouse.spec.ts) into docs/performance-web.md, between the
// "lighthouse:begin" and "lighthouse:end" markers. Run by scripts/perf-web.sh.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(web, 'test-results/lighthouse');
const doc = resolve(web, '../docs/performance-web.md');
const ORDER = ['/', '/pricing', '/buy', '/gift', '/account', '/buy/success'];

const rows = readdirSync(dir)
  .filter((f) => f.endsWith('.scores.json'))
  .map((f) => JSON.parse(readFileSync(resolve(dir, f), 'utf8')))
  .sort((a, b) => ORDER.indexOf(a.path) - ORDER.indexOf(b.path));
if (rows.length === 0) throw new Error(`lighthouse-doc: no scores in ${dir}; run scripts/perf-web.sh`);

const mark = (n, bar) => (n >= bar ? `${n}` : `**${n}** (below ${bar})`);
// The performance score is the median of several runs (e2e/tests/lighthouse.spec.ts), each shown.
const perf = (r) => `${mark(r.scores.performance, 90)}${r.performanceRuns?.length > 1 ? ` (runs ${r.performanceRuns.join(', ')})` : ''}`;
// Each run's total blocking time and layout shift, the two metrics the CPU and the layout decide.
const timed = (r) => (r.metricRuns?.length ? r.metricRuns.map((m) => `${m.tbtMs} ms / ${m.cls}`).join(', ') : '–');
const table = [
  `Measured ${new Date().toISOString().slice(0, 10)} by \`scripts/perf-web.sh\` (Lighthouse 12.2.3, mobile emulation, simulated throttling, Debian Chromium; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} when written):`,
  '',
  '| page | state | performance (≥ 90, recorded: the median of its runs) | TBT / CLS of each run | accessibility (≥ 95) | best practices (≥ 95) | SEO (≥ 95) |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| \`${r.path}\` | ${r.state} | ${perf(r)} | ${timed(r)} | ${mark(r.scores.accessibility, 95)} | ${mark(r.scores['best-practices'], 95)} | ${mark(r.scores.seo, 95)} |`),
].join('\n');

// A run of some pages only (HANGAR_LIGHTHOUSE_PAGES) would replace the record of all of them
// with a part: it is printed, not written.
if (process.env.HANGAR_LIGHTHOUSE_PAGES) {
  console.log(`lighthouse-doc: HANGAR_LIGHTHOUSE_PAGES is set, so ${doc} is left as it is; this run:\n${table}`);
  process.exit(0);
}
const text = readFileSync(doc, 'utf8');
const begin = '<!-- lighthouse:begin -->';
const end = '<!-- lighthouse:end -->';
const a = text.indexOf(begin);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error(`lighthouse-doc: ${doc} lacks the ${begin} … ${end} markers`);
writeFileSync(doc, `${text.slice(0, a + begin.length)}\n${table}\n${text.slice(b)}`);
console.log(`lighthouse-doc: ${rows.length} pages written to ${doc}`);
