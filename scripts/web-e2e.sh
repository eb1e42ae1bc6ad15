#!/usr/bin/env bash
# Browser tests (Playwright + Debian's Chromium) against the real stack:
#   1. installs chromium with apt when /usr/bin/chromium is missing (never `playwright install`);
#   2. builds the site (scripts/web-build.sh);
#   3. starts `go run ./cmd/hangar-dev` on its own databases (HANGAR_DB_PREFIX, default
#      hangar_e2e_, dropped first) and HANGAR_E2E_ADDR (default 127.0.0.1:18080) serving
#      web/dist/site, with payments' card-fields origin on HANGAR_E2E_FIELDS_ADDR (default:
#      the same host, port + 200; exported to the tests as HANGAR_FIELDS_URL), waits for
#      /-/ready (HANGAR_READY_TIMEOUT, default 180 s), and stops it on exit, failure included;
#      for the whole suite, or a spec of e2e/processes, a second stack beside it: hangar-dev
#      in multi-process mode, two replicas per service, fault points armed through
#      HANGAR_E2E_FAULT_DIR, on HANGAR_E2E_PROCESSES_ADDR (default: port + 1; its card-fields
#      origin port + 200 of that), databases <prefix>mp_, for the Playwright project
#      "processes" (HANGAR_PROCESSES_URL; log web/test-results/hangar-dev-processes.log);
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

# Each stack runs in its own process group (setsid), so go run and everything it started
# stop together; stop_stacks stops them all, on failure too.
stack_pids=()
stop_stacks() {
  local pid
  for pid in "${stack_pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      web_log "stopping a stack (process group $pid)"
      kill -TERM -- "-$pid" 2>/dev/null || true
    fi
  done
  for pid in "${stack_pids[@]}"; do
    for _ in $(seq 1 75); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  stack_pids=()
}
trap stop_stacks EXIT
trap 'exit 130' INT TERM

# ensure_free ADDR WHAT VAR: fails the run when something listens on ADDR already.
ensure_free() {
  if (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null; then
    echo "web-e2e: $1 ($2) is already in use; stop what listens there, or set ${3} to 127.0.0.1:<free port>, or HANGAR_BASE_URL to test a running stack" >&2
    exit 1
  fi
}

# start_stack NAME ADDR FIELDS_ADDR PREFIX EXCHANGES [VAR=VALUE...]: go run ./cmd/hangar-dev
# on databases of the run's own (PREFIX, dropped first: what one run spent, a card's
# gift-certificate day cap, throttles, redemptions, never counts against the next run, nor
# against make dev), logging to test-results/NAME.log and its API exchanges to EXCHANGES.
start_stack() {
  local name=$1 addr=$2 fields_addr=$3 prefix=$4 exchanges=$5
  shift 5
  local log="$results/$name.log"
  for db in $(psql -h 127.0.0.1 -U postgres -At -v p="$prefix" <<<"SELECT datname FROM pg_database WHERE left(datname, length(:'p')) = :'p'"); do
    dropdb -h 127.0.0.1 -U postgres --if-exists "$db"
  done
  rm -f "$exchanges"
  web_log "starting $name: EDGE_ADDR=$addr FIELDS_ADDR=$fields_addr $* go run ./cmd/hangar-dev (log: ${log#"$WEB_ROOT_DIR"/})"
  (cd "$WEB_ROOT_DIR" && exec env "$@" HANGAR_DB_PREFIX="$prefix" EDGE_ADDR="$addr" FIELDS_ADDR="$fields_addr" WEB_DIST_DIR="$WEB_DIR/dist/site" \
    HANGAR_CONTRACT_LOG="$exchanges" setsid go run ./cmd/hangar-dev) >"$log" 2>&1 &
  stack_pids+=($!)
}

# wait_ready NAME URL: waits for the stack's /-/ready (HANGAR_READY_TIMEOUT, default 180 s).
wait_ready() {
  local name=$1 url=$2 pid=$3 log="$results/$1.log"
  local timeout_s="${HANGAR_READY_TIMEOUT:-180}"
  web_log "waiting for $url/-/ready (up to ${timeout_s} s)"
  for _ in $(seq 1 "$timeout_s"); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "web-e2e: $name exited before it was ready; last lines of $log:" >&2
      tail -n 40 "$log" >&2 || true
      exit 1
    fi
    if curl -fsS -o /dev/null --max-time 2 "$url/-/ready"; then
      web_log "$name ready after $((SECONDS - start)) s"
      return 0
    fi
    sleep 1
  done
  echo "web-e2e: $url/-/ready not ready after ${timeout_s} s; last lines of $log:" >&2
  tail -n 40 "$log" >&2 || true
  exit 1
}

# The processes project (e2e/processes: faults a single process cannot have, such as a
# checkout replica killed inside a submit) runs on a second stack: hangar-dev in
# multi-process mode, two replicas per service, its fault points armed through a directory
# of the run's (HANGAR_E2E_FAULT_DIR, as scripts/chaos.sh arms them). It is started for the
# whole suite, or when a spec argument names e2e/processes; on HANGAR_E2E_PROCESSES_ADDR
# (default: the same host, port + 1) and its card-fields origin on port + 200 of that.
wants_processes=""
if (($# == 0)); then
  wants_processes=1
else
  for a in "$@"; do [[ "$a" == *processes* ]] && wants_processes=1; done
fi

exchange_logs=()
if [[ -z "${HANGAR_BASE_URL:-}" ]]; then
  addr="${HANGAR_E2E_ADDR:-127.0.0.1:18080}"
  host="${addr%:*}"
  port="${addr##*:}"
  fields_addr="${HANGAR_E2E_FIELDS_ADDR:-$host:$((port + 200))}"
  ensure_free "$addr" "the store" HANGAR_E2E_ADDR
  ensure_free "$fields_addr" "the card-fields origin" HANGAR_E2E_FIELDS_ADDR
  prefix="${HANGAR_DB_PREFIX:-hangar_e2e_}"
  exchange_logs+=("$results/api-exchanges.jsonl")
  start_stack hangar-dev "$addr" "$fields_addr" "$prefix" "$results/api-exchanges.jsonl"
  main_pid=${stack_pids[-1]}
  export HANGAR_BASE_URL="http://$addr"
  export HANGAR_FIELDS_URL="http://$fields_addr/"
  if [[ -n "$wants_processes" ]]; then
    p_addr="${HANGAR_E2E_PROCESSES_ADDR:-$host:$((port + 1))}"
    p_fields="${p_addr%:*}:$((${p_addr##*:} + 200))"
    ensure_free "$p_addr" "the multi-process store" HANGAR_E2E_PROCESSES_ADDR
    ensure_free "$p_fields" "the multi-process card-fields origin" HANGAR_E2E_PROCESSES_ADDR
    export HANGAR_E2E_FAULT_DIR="$results/faults"
    rm -rf "$HANGAR_E2E_FAULT_DIR" && mkdir -p "$HANGAR_E2E_FAULT_DIR"
    exchange_logs+=("$results/api-exchanges-processes.jsonl")
    # Its own service binaries (bin/dev-e2e), not make dev's or the chaos run's.
    start_stack hangar-dev-processes "$p_addr" "$p_fields" "${prefix}mp_" "$results/api-exchanges-processes.jsonl" \
      HANGAR_DEV_PROCESSES=true HANGAR_DEV_REPLICAS=2 HANGAR_DEV_BIN=bin/dev-e2e HANGAR_FAULT_DIR="$HANGAR_E2E_FAULT_DIR"
    processes_pid=${stack_pids[-1]}
  fi
  wait_ready hangar-dev "$HANGAR_BASE_URL" "$main_pid"
  if [[ -n "$wants_processes" ]]; then
    wait_ready hangar-dev-processes "http://$p_addr" "$processes_pid"
    export HANGAR_PROCESSES_URL="http://$p_addr"
  fi
else
  web_log "testing the running stack at $HANGAR_BASE_URL (the processes project needs a stack of this script's: not run)"
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
if ((${#exchange_logs[@]} > 0)); then
  stop_stacks # the logs are complete once the edges have stopped
  for exchanges in "${exchange_logs[@]}"; do
    web_log "contract check of the run's API exchanges (${exchanges#"$WEB_ROOT_DIR"/})"
    (cd "$WEB_ROOT_DIR" && go run ./cmd/contract-check "$exchanges") || status=1
  done
fi
web_log "web e2e done in $((SECONDS - start)) s"
exit "$status"
