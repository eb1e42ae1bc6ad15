#!/usr/bin/env bash
# Browser tests (Playwright + Debian's Chromium) against the real stack:
#   1. installs chromium with apt when /usr/bin/chromium is missing (never `playwright install`);
#   2. builds the site (scripts/web-build.sh);
#   3. starts `go run ./cmd/hangar-dev` on its own databases (HANGAR_DB_PREFIX, default
#      hangar_e2e_, dropped first) and HANGAR_E2E_ADDR (default 127.0.0.1:18080) serving
#      web/dist/site, with payments' card-fields origin on HANGAR_E2E_FIELDS_ADDR (default:
#      the same host, port + 200; exported to the tests as HANGAR_FIELDS_URL), waits for
#      /-/ready (HANGAR_READY_TIMEOUT, default 180 s), and stops it on exit, failure included;
#   4. runs the Playwright suite in web/e2e. Screenshots, traces and the JSON report stay
#      in web/test-results/ (git-ignored); the stack's log is web/test-results/hangar-dev.log;
#      e2e/tests/lighthouse.spec.ts runs Lighthouse 12 on the same stack (mobile; accessibility,
#      best practices and SEO >= 95 asserted; scores in web/test-results/lighthouse/, printed at
#      the end; the performance score only with HANGAR_PERF_TIMED, i.e. scripts/perf-web.sh);
#   5. holds every API exchange of the run (the edge logs them to
#      web/test-results/api-exchanges.jsonl, HANGAR_CONTRACT_LOG) to the OpenAPI documents
#      (cmd/contract-check): one violation fails the run, as in the Go service tests.
# HANGAR_BASE_URL=http://host:port skips starting the stack and tests that URL instead (the
# tests then learn the card-fields origin from its client token, or HANGAR_FIELDS_URL).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/web-env.sh"

start=$SECONDS
if [[ ! -x /usr/bin/chromium ]]; then
  web_log "installing chromium (apt)"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# The stack runs in development mode (hangar-dev), and so is the site assembled: its outside
# links take their development values (web/tools/site-links.mjs) unless set.
HANGAR_DEV_MODE="${HANGAR_DEV_MODE:-true}" "$WEB_ROOT_DIR/scripts/web-build.sh"

results="$WEB_DIR/test-results"
mkdir -p "$results"

stack_pid=""
stop_stack() {
  if [[ -n "$stack_pid" ]] && kill -0 "$stack_pid" 2>/dev/null; then
    web_log "stopping the stack (process group $stack_pid)"
    kill -TERM -- "-$stack_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$stack_pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL -- "-$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
}
trap stop_stack EXIT
trap 'exit 130' INT TERM

if [[ -z "${HANGAR_BASE_URL:-}" ]]; then
  addr="${HANGAR_E2E_ADDR:-127.0.0.1:18080}"
  host="${addr%:*}"
  port="${addr##*:}"
  if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    echo "web-e2e: $addr is already in use; stop what listens there, or set HANGAR_E2E_ADDR=127.0.0.1:<free port>, or HANGAR_BASE_URL to test a running stack" >&2
    exit 1
  fi
  fields_addr="${HANGAR_E2E_FIELDS_ADDR:-$host:$((port + 200))}"
  if (exec 3<>"/dev/tcp/${fields_addr%:*}/${fields_addr##*:}") 2>/dev/null; then
    echo "web-e2e: $fields_addr (the card-fields origin) is already in use; set HANGAR_E2E_FIELDS_ADDR=127.0.0.1:<free port>" >&2
    exit 1
  fi
  log="$results/hangar-dev.log"
  web_log "starting the stack: EDGE_ADDR=$addr FIELDS_ADDR=$fields_addr go run ./cmd/hangar-dev (log: ${log#"$WEB_ROOT_DIR"/})"
  # setsid: the stack gets its own process group, so go run and everything it
  # started stop together.
  exchanges="$results/api-exchanges.jsonl"
  rm -f "$exchanges"
  # Databases of the run's own, dropped first: what one run spent (a card's gift-certificate
  # day cap, throttles, redemptions) never counts against the next run, nor against make dev.
  prefix="${HANGAR_DB_PREFIX:-hangar_e2e_}"
  for db in $(psql -h 127.0.0.1 -U postgres -At -v p="$prefix" <<<"SELECT datname FROM pg_database WHERE left(datname, length(:'p')) = :'p'"); do
    dropdb -h 127.0.0.1 -U postgres --if-exists "$db"
  done
  (cd "$WEB_ROOT_DIR" && HANGAR_DB_PREFIX="$prefix" EDGE_ADDR="$addr" FIELDS_ADDR="$fields_addr" WEB_DIST_DIR="$WEB_DIR/dist/site" HANGAR_CONTRACT_LOG="$exchanges" exec setsid go run ./cmd/hangar-dev) >"$log" 2>&1 &
  stack_pid=$!
  export HANGAR_BASE_URL="http://$addr"
  export HANGAR_FIELDS_URL="http://$fields_addr/"

  timeout_s="${HANGAR_READY_TIMEOUT:-180}"
  web_log "waiting for $HANGAR_BASE_URL/-/ready (up to ${timeout_s} s)"
  ready=""
  for _ in $(seq 1 "$timeout_s"); do
    if ! kill -0 "$stack_pid" 2>/dev/null; then
      echo "web-e2e: the stack exited before it was ready; last lines of $log:" >&2
      tail -n 40 "$log" >&2 || true
      exit 1
    fi
    if curl -fsS -o /dev/null --max-time 2 "$HANGAR_BASE_URL/-/ready"; then
      ready=1
      break
    fi
    sleep 1
  done
  if [[ -z "$ready" ]]; then
    echo "web-e2e: $HANGAR_BASE_URL/-/ready not ready after ${timeout_s} s; last lines of $log:" >&2
    tail -n 40 "$log" >&2 || true
    exit 1
  fi
  web_log "stack ready after $((SECONDS - start)) s"
else
  web_log "testing the running stack at $HANGAR_BASE_URL"
fi

status=0
rm -rf "$results/lighthouse" # this run's Lighthouse scores only (e2e/tests/lighthouse.spec.ts)
(cd "$WEB_DIR" && node_modules/.bin/playwright test -c e2e/playwright.config.ts "$@") || status=$?

(cd "$WEB_DIR" && node -e '
  const fs = require("fs"), f = "test-results/e2e-report.json";
  if (!fs.existsSync(f)) { console.log("e2e: 0 passed, 1 failed"); process.exit(0); }
  const s = JSON.parse(fs.readFileSync(f, "utf8")).stats;
  console.log(`e2e: ${s.expected + s.flaky} passed, ${s.unexpected} failed` + (s.skipped ? `, ${s.skipped} skipped` : ""));
  const p = "test-results/performance-buy.json";
  if (fs.existsSync(p)) {
    const r = JSON.parse(fs.readFileSync(p, "utf8"));
    console.log(`performance /buy: initial JS ${(r.initialJs.gzipBytes / 1024).toFixed(1)} KB gzipped (budget 250), LCP ${r.lcp.ms} ms (budget 1500; samples ${r.lcp.samplesMs.join("/")})` + (r.clickToInvoice ? `, click->invoice p75 ${r.clickToInvoice.p75Ms} ms (budget 100)` : "") + " [timed budgets asserted by scripts/perf-web.sh]");
  }
  const lh = "test-results/lighthouse";
  if (fs.existsSync(lh)) {
    const rows = fs.readdirSync(lh).filter((f) => f.endsWith(".scores.json")).map((f) => JSON.parse(fs.readFileSync(`${lh}/${f}`, "utf8")));
    for (const r of rows) console.log(`lighthouse ${r.path}: ` + (r.scores.performance === undefined ? "" : `performance ${r.scores.performance} (recorded), `) + `accessibility ${r.scores.accessibility}, best practices ${r.scores["best-practices"]}, SEO ${r.scores.seo} (bars 95)`);
  }
')
if [[ -n "${exchanges:-}" ]]; then
  stop_stack # the log is complete once the edge has stopped
  web_log "contract check of the run's API exchanges (${exchanges#"$WEB_ROOT_DIR"/})"
  (cd "$WEB_ROOT_DIR" && go run ./cmd/contract-check "$exchanges") || status=1
fi
web_log "web e2e done in $((SECONDS - start)) s"
exit "$status"
