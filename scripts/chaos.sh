#!/usr/bin/env bash
# Renewal-season load with faults (issues 16 and 30): the store in multi-process mode with
# two replicas of every service (HANGAR_DEV_REPLICAS, CHAOS_REPLICAS), on production
# timings (submit lease 10 s, reconciler 30 s, payments' processor sweep 1 min: nothing is
# shortened), first under the season's traffic with its SLO thresholds
# (loadtest/renewal-season.js, no faults), then under the same traffic (CHAOS=1) plus
# `hangar-chaos buyers` (purchases that never retry a request: every failure is one a buyer
# saw) while, one at a time,
#   - one replica of each of the seven services is killed with SIGKILL (hangar-dev restarts
#     it, as the kubelet would; the first replica of one service, the second of the next),
#   - a payments replica dies inside a submit, between the processor's capture and its own
#     commit, and a checkout replica between the charge and the order's write (the fault
#     points of internal/platform/fault, armed through HANGAR_FAULT_DIR; development mode
#     only), so the windows that can lose money are hit on purpose, not by luck;
#   - 40 more buyers purchase at once (CHAOS_BURST) and a checkout replica is killed among
#     their submits: every order written once, and the buyers wait ("being processed")
#     instead of failing;
#   - the operator's `checkout renew -as-of <today> -window 168h` starts beside the running
#     service on CHAOS_RENEWALS freshly due subscriptions (1,000; 300 short), which the
#     service's own workers renew too, and runs through the faults below;
# then, with the buyers stopped (these are outages, not one replica's death: buyers do see
# them),
#   - one checkout replica and then one payments replica are paused with SIGSTOP for
#     CHAOS_PAUSE seconds (45: past the submit and renewal leases) and resumed: a slow
#     process, not a dead one (its claims are taken over and fenced);
#   - both replicas of payments are killed with SIGKILL at once;
#   - the Kafka-protocol broker is killed with SIGKILL and started again on its data dir,
#   - PostgreSQL is stopped in immediate mode (a crash: recovery replays the WAL) and
#     started again;
# after each fault `hangar-chaos probe` measures the recovery: seconds until the process's
# /readyz answers, a purchase made as a browser makes it succeeds, and its receipt e-mail
# arrives. When the load ends, `hangar-chaos reconcile` waits for the store to settle and
# reconciles one to one: the processor's captures against payments' charges, charges
# against orders, the orders buyers were told about against the orders written,
# subscription orders against subscriptions, receipt and gift e-mails against orders and
# certificates, and every event in the broker's log against the inbox of each consumer of
# its topic, and reports captures without an order and renewal terms charged twice. It
# exits 1 on any lost or doubled order, charge, capture, subscription, renewal term, event
# or e-mail, any failure the buyers saw during the single-replica kills (the burst's
# included), a due term the renewal command and the service left unrenewed, or a recovery
# of 10 s or more.
#
# Everything runs on its own: a PostgreSQL cluster of its own (initdb into a temporary
# directory, port CHAOS_PG_PORT; the machine's shared PostgreSQL is never touched), its own
# broker process (`hangar-dev broker`, port CHAOS_BROKER_PORT, log on disk), the edge on
# CHAOS_EDGE_PORT. Every process it starts is stopped on exit; logs stay in the work
# directory it prints.
#
#   scripts/chaos.sh           the full run: 20 s warm-up, the eleven faults 15 s apart
#   scripts/chaos.sh --short   a quick run: half the load, faults 5 s apart
# Either way the settling afterwards takes what production timings take (a payments
# replica killed after a capture nobody retried is adopted by the sweep within a minute).
#
# Not part of `make test` (too long). The figures are in docs/reliability.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/stack-lib.sh
export GOWORK=off GOFLAGS=-buildvcs=false

SHORT=0
[[ "${1:-}" == "--short" ]] && SHORT=1
EDGE_PORT=${CHAOS_EDGE_PORT:-18180}
K6_API_PORT=${CHAOS_K6_PORT:-18181}
FIELDS_PORT=${CHAOS_FIELDS_PORT:-18182} # payments' card-fields origin (docs/pci-saq-a.md)
BROKER_PORT=${CHAOS_BROKER_PORT:-18198}
PG_PORT=${CHAOS_PG_PORT:-18199}
PREFIX=${HANGAR_DB_PREFIX:-hangar_chaos_}
REPLICAS=${CHAOS_REPLICAS:-2}
BUYERS=${CHAOS_BUYERS:-2}
BURST=${CHAOS_BURST:-40}
PAUSE=${CHAOS_PAUSE:-45}
RECOVERY_LIMIT=${CHAOS_RECOVERY_LIMIT:-10}
if ((SHORT)); then GAP=5 WARMUP=10 SCALE=0.5 SLO_DURATION=15 RENEWALS=${CHAOS_RENEWALS:-300}; else GAP=15 WARMUP=20 SCALE=1 SLO_DURATION=30 RENEWALS=${CHAOS_RENEWALS:-1000}; fi
BASE="http://127.0.0.1:$EDGE_PORT"
FIELDS_URL="http://127.0.0.1:$FIELDS_PORT"

WORK="$(mktemp -d /tmp/hangar-chaos.XXXXXX)"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
# PostgreSQL refuses to run as root: then its directory belongs to, and it runs as, the
# postgres user.
PGROOT="$(mktemp -d /tmp/hangar-chaos-pg.XXXXXX)"
PGDATA="$PGROOT/data"
pgrun() { if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi; }
((EUID == 0)) && chown postgres "$PGROOT"
PGURL="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
log() { printf '%s chaos: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$WORK/chaos.log" >&2; }

stack_pgid="" broker_pid="" k6_pid="" buyers_pid="" renew_pid="" paused_pid=""
cleanup() {
  local rc=$?
  [[ -n "$paused_pid" ]] && kill -CONT "$paused_pid" 2>/dev/null || true
  [[ -n "$renew_pid" ]] && kill "$renew_pid" 2>/dev/null || true
  [[ -n "$k6_pid" ]] && kill "$k6_pid" 2>/dev/null || true
  [[ -n "$buyers_pid" ]] && kill "$buyers_pid" 2>/dev/null || true
  [[ -n "$stack_pgid" ]] && kill -TERM -- "-$stack_pgid" 2>/dev/null || true
  [[ -n "$broker_pid" ]] && kill "$broker_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  pgrun "$PGBIN/pg_ctl" -D "$PGDATA" -m fast stop >/dev/null 2>&1 || true
  cp "$PGROOT/postgres.log" "$WORK/" 2>/dev/null || true
  rm -rf "$PGROOT" "$WORK/kafka" "$WORK/bin"
  if ((rc != 0)); then log "FAILED (exit $rc); logs in $WORK"; else log "logs in $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for p in "$EDGE_PORT" "$K6_API_PORT" "$BROKER_PORT" "$PG_PORT"; do
  port_free "$p" || { echo "chaos: port $p is in use" >&2; exit 1; }
done

log "building hangar-dev, hangar-chaos and k6 (work dir $WORK)"
mkdir -p "$WORK/bin"
go build -o "$WORK/bin/hangar-dev" ./cmd/hangar-dev
go build -o "$WORK/bin/hangar-chaos" ./cmd/hangar-chaos
go build -o "$WORK/bin/checkout" ./services/checkout/cmd/checkout
make --no-print-directory k6 >/dev/null

# ------------------------------------------------------------------ our own PostgreSQL
log "PostgreSQL of its own on port $PG_PORT ($PGBIN)"
pgrun "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust --no-sync >"$WORK/initdb.log" 2>&1
# Crash recovery time is set by two settings: syncfs instead of an fsync of every file of
# the data directory before replaying the WAL (PostgreSQL >= 14; seconds on this shared
# disk), and a checkpoint every 30 s, so little WAL is replayed and few dirty buffers are
# written by the end-of-recovery checkpoint. fsync stays on: the crash is honest.
pg_start() {
  pgrun "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGROOT/postgres.log" -w -t 60 start \
    -o "-p $PG_PORT -k $PGROOT -c listen_addresses=127.0.0.1 -c max_connections=400 -c shared_buffers=64MB \
        -c recovery_init_sync_method=syncfs -c checkpoint_timeout=30s" >/dev/null
}
pg_start

# ------------------------------------------------------------------ our own broker
broker_start() {
  BROKER_PORT="$BROKER_PORT" BROKER_DATA_DIR="$WORK/kafka" "$WORK/bin/hangar-dev" broker >>"$WORK/broker.log" 2>&1 &
  broker_pid=$!
  for _ in $(seq 100); do
    port_free "$BROKER_PORT" || return 0
    sleep 0.1
  done
  echo "chaos: broker did not listen on $BROKER_PORT" >&2
  return 1
}
log "Kafka-protocol broker of its own on port $BROKER_PORT (log in $WORK/kafka)"
broker_start

# ------------------------------------------------------------------ the stack
# Production timings (issue 30): the submit lease (10 s, renewed while a submit lives), the
# reconciler (30 s) and payments' processor sweep (1 min) are the defaults, so the run
# proves what production does.
# Every load buyer comes from 127.0.0.1, which the gift day cap counts as one client
# address ($5,000 a day: twelve of the season's gift orders): off here, or the load's gift
# journeys fail on the cap, not on the store.
FAULTS="$WORK/faults"
mkdir -p "$FAULTS"
log "hangar-dev in multi-process mode, $REPLICAS replicas per service, on $BASE"
setsid env HANGAR_DEV_PROCESSES=true HANGAR_DEV_REPLICAS="$REPLICAS" HANGAR_FAULT_DIR="$FAULTS" EDGE_ADDR="127.0.0.1:$EDGE_PORT" FIELDS_ADDR="127.0.0.1:$FIELDS_PORT" KAFKA_BROKERS="127.0.0.1:$BROKER_PORT" \
  DATABASE_URL="$PGURL" HANGAR_DB_PREFIX="$PREFIX" HANGAR_DEV_BIN="$WORK/bin/dev" HANGAR_DEV_MAIL_MAX=200000 \
  CHECKOUT_GIFT_DAY_CAP=0 LOG_LEVEL=warn \
  "$WORK/bin/hangar-dev" >"$WORK/stack.log" 2>&1 &
stack_pgid=$!
stack_wait_ready chaos "$stack_pgid" "$BASE" "$WORK/stack.log" 600
log "stack up; baseline probe: $("$WORK/bin/hangar-chaos" probe -base "$BASE" -orders "$WORK/probe-orders.log" -timeout 60s)"

processes() { curl -fsS "$BASE/-/processes"; }

# ------------------------------------------------------------------ SLOs, no faults
# The same load with its thresholds (the journeys' SLOs) on the healthy stack first: the
# faults are judged against a stack that meets them.
log "renewal-season load with the SLO thresholds, no faults (${SLO_DURATION}s)"
slo=PASS
K6_NO_USAGE_REPORT=true "$ROOT/bin/k6" run --quiet --address "127.0.0.1:$K6_API_PORT" \
  -e BASE_URL="$BASE" -e FIELDS_URL="$FIELDS_URL" -e SCALE="$SCALE" -e DURATION="${SLO_DURATION}s" -e LOG_ORDERS=1 \
  --log-output="file=$WORK/k6-slo-orders.log" --summary-export="$WORK/k6-slo-summary.json" \
  loadtest/renewal-season.js >"$WORK/k6-slo.out" 2>&1 || slo=FAIL
slo_line="SLO thresholds $slo: $(jq -r '[.metrics | to_entries[] | select(.key | startswith("http_req_duration{slo:") or startswith("http_req_duration{journey:")) | "\(.key | sub("http_req_duration\\{(slo|journey):"; "") | sub("\\}"; "")) p99 \(.value["p(99)"] | . * 10 | round / 10) ms"] | join(", ")' "$WORK/k6-slo-summary.json" 2>/dev/null), failed requests $(jq -r '.metrics.http_req_failed.value * 10000 | round / 100' "$WORK/k6-slo-summary.json" 2>/dev/null)%"
log "$slo_line"

# ------------------------------------------------------------------ load
log "renewal-season load (CHAOS=1, SCALE=$SCALE)"
K6_NO_USAGE_REPORT=true "$ROOT/bin/k6" run --quiet --address "127.0.0.1:$K6_API_PORT" \
  -e BASE_URL="$BASE" -e FIELDS_URL="$FIELDS_URL" -e CHAOS=1 -e SCALE="$SCALE" -e DURATION=60m \
  --log-output="file=$WORK/k6-orders.log" --summary-export="$WORK/k6-summary.json" \
  loadtest/renewal-season.js >"$WORK/k6.out" 2>&1 &
k6_pid=$!
# The buyers who count: every request once, never retried (cmd/hangar-chaos/buyers.go).
"$WORK/bin/hangar-chaos" buyers -base "$BASE" -c "$BUYERS" -duration 60m -orders "$WORK/buyers-orders.log" >"$WORK/buyers.txt" 2>"$WORK/buyers.log" &
buyers_pid=$!
sleep "$WARMUP"

# ------------------------------------------------------------------ faults
results=()
fail=0
record() { # name, probe output
  local name=$1 out=$2
  results+=("$(printf '%-14s %s' "$name" "$out")")
  log "$name: $out"
  local p
  p=$(sed -n 's/.*purchase_s=\([0-9.]*\).*/\1/p' <<<"$out")
  if [[ -z "$p" ]] || awk -v p="$p" -v l="$RECOVERY_LIMIT" 'BEGIN { exit !(p >= l) }'; then
    fail=1
  fi
  # The receipt must arrive too (its time is reported, not held to the limit: it includes
  # the consumer group's rebalance after a consumer died, up to the session timeout).
  grep -q 'receipt_mail_s=-1' <<<"$out" && fail=1
  return 0
}
probe() { "$WORK/bin/hangar-chaos" probe -base "$BASE" -orders "$WORK/probe-orders.log" -timeout 120s "$@" 2>&1 || true; }

# One replica at a time: the first of one service, the second of the next (a second
# replica is "<service>-2" in /-/processes).
n=0
for svc in catalog identity payments checkout allocation geo notifications; do
  kill -0 "$k6_pid" 2>/dev/null || { echo "chaos: k6 exited early; see $WORK/k6.out" >&2; exit 1; }
  name=$svc
  ((REPLICAS > 1 && n++ % 2 == 1)) && name="$svc-2"
  info=$(processes | jq -c --arg s "$name" '.[$s]')
  pid=$(jq -r .pid <<<"$info") admin=$(jq -r .admin <<<"$info")
  log "kill -9 $name (pid $pid)"
  t0=$(date +%s.%N)
  kill -9 "$pid"
  record "$name" "$(probe -since "$t0" -ready "http://$admin/readyz")"
  sleep "$GAP"
done

# Kills inside a submit: the point is armed, and the first replica to reach it dies there
# (the file is its trigger; removing it is firing). The restarts count tells which died.
for point in payments.after-capture checkout.after-charge; do
  svc=${point%%.*}
  before=$(processes | jq -c --arg s "$svc" '[to_entries[] | select(.key == $s or .key == ($s + "-2")) | {key, restarts: .value.restarts}]')
  log "arming $point (the next submit to pass it dies there)"
  t0=$(date +%s.%N)
  touch "$FAULTS/$point"
  deadline=$((SECONDS + 60))
  while [[ -e "$FAULTS/$point" ]] && ((SECONDS < deadline)); do sleep 0.2; done
  if [[ -e "$FAULTS/$point" ]]; then
    rm -f "$FAULTS/$point"
    record "$point" "never fired within 60 s"
    continue
  fi
  t0=$(date +%s.%N)
  sleep 1
  died=$(processes | jq -r --arg s "$svc" --argjson b "$before" '[to_entries[] | select(.key == $s or .key == ($s + "-2")) | . as $e | select(($b[] | select(.key == $e.key) | .restarts) < $e.value.restarts) | .key] | join(" ")')
  log "$point fired: $died died inside a submit"
  record "$point" "$(probe -since "$t0") died=${died:-?}"
  sleep "$GAP"
done

# Many submits in flight at a kill: BURST more buyers purchase at once, and a checkout
# replica dies among their submits. The edge moves what it can replay; a buyer whose
# submit died with the replica is told "being processed" and waits (the page's wait), and
# the reconciliation finds every order written once.
log "burst: $BURST buyers at once, kill -9 of a checkout replica among their submits"
burst_rc=0
"$WORK/bin/hangar-chaos" buyers -base "$BASE" -c "$BURST" -duration 12s -orders "$WORK/burst-orders.log" >"$WORK/burst.txt" 2>"$WORK/burst.log" &
burst_pid=$!
sleep 4
info=$(processes | jq -c '.checkout')
t0=$(date +%s.%N)
kill -9 "$(jq -r .pid <<<"$info")"
record "burst-kill" "$(probe -since "$t0" -ready "http://$(jq -r .admin <<<"$info")/readyz")"
wait "$burst_pid" || burst_rc=$?
burst_line="burst of $BURST buyers (no retries) with a checkout replica killed among their submits: $(tail -n 1 "$WORK/burst.txt")"
log "$burst_line"
sleep "$GAP"

# The renewal command beside the running service: RENEWALS card subscriptions of the
# pilot's (payments' dev seed vaults the card they renew with) whose terms ended in the last
# hour, which the service's workers renew too, and the operator's pass as of today over
# them; it runs on through the pauses below.
pg_in() { psql "postgres://postgres@127.0.0.1:$PG_PORT/$PREFIX$1?sslmode=disable" -XAtq -v ON_ERROR_STOP=1 -c "$2"; }
seed_pilot_renewals pg_in "$RENEWALS"
log "renewal command beside the service: checkout renew -as-of $(date -u +%F) -window 168h over $RENEWALS due terms"
env HANGAR_DEV_MODE=true DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/${PREFIX}checkout?sslmode=disable" \
  CATALOG_ADDR="$(processes | jq -r .catalog.grpc)" PAYMENTS_ADDR="$(processes | jq -r .payments.grpc)" LOG_LEVEL=warn \
  "$WORK/bin/checkout" renew -as-of "$(date -u +%F)" -window 168h >"$WORK/renew.out" 2>&1 &
renew_pid=$!

# The buyers stop here: what follows are outages, which buyers do see.
kill -INT "$buyers_pid" 2>/dev/null || true
buyers_rc=0
wait "$buyers_pid" || buyers_rc=$?
buyers_pid=""
buyers_line="buyers (no retries) during the single-replica kills: $(tail -n 1 "$WORK/buyers.txt")"
log "$buyers_line"

# A slow process, not a dead one: one replica paused past every lease, then resumed. Its
# claims are taken over (the reconciler, the other replica, the renewal workers) and its
# late writes are refused by their fences.
for svc in checkout payments; do
  info=$(processes | jq -c --arg s "$svc" '.[$s]')
  paused_pid=$(jq -r .pid <<<"$info")
  log "SIGSTOP $svc (pid $paused_pid) for ${PAUSE}s"
  kill -STOP "$paused_pid"
  sleep "$PAUSE"
  t0=$(date +%s.%N)
  kill -CONT "$paused_pid"
  paused_pid=""
  record "$svc-paused" "$(probe -since "$t0" -ready "http://$(jq -r .admin <<<"$info")/readyz")"
  sleep "$GAP"
done

# Both replicas of one service at once: an outage of payments, not a replica's death.
pids=$(processes | jq -r 'to_entries[] | select(.key == "payments" or .key == "payments-2") | .value.pid' | tr '\n' ' ')
log "kill -9 both payments replicas (pids $pids)"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
kill -9 $pids
record "payments-both" "$(probe -since "$t0" -ready "http://$(processes | jq -r .payments.admin)/readyz")"
sleep "$GAP"

log "kill -9 the broker (pid $broker_pid), start it again on its data dir"
t0=$(date +%s.%N)
kill -9 "$broker_pid"
wait "$broker_pid" 2>/dev/null || true
broker_start
log "broker listening again after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
record broker "$(probe -since "$t0")"
sleep "$GAP"

log "PostgreSQL: immediate stop (a crash), start again"
t0=$(date +%s.%N)
pgrun "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate stop >/dev/null
pg_start
log "PostgreSQL accepting connections again after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
record postgresql "$(probe -since "$t0" -ready "http://$(processes | jq -r .checkout.admin)/readyz")"
sleep "$GAP"

log "stopping the load"
kill -INT "$k6_pid"
wait "$k6_pid" || true
k6_pid=""
log "waiting for the renewal command"
renew_rc=0
wait "$renew_pid" || renew_rc=$?
renew_pid=""
renew_line="renewal command beside the service (exit $renew_rc): $(tail -n 3 "$WORK/renew.out" | tr '\n' ' ')"
log "$renew_line"
tail -n 60 "$WORK/k6.out" >"$WORK/k6-tail.txt" || true

# ------------------------------------------------------------------ reconcile
log "reconciling (waits for the store to settle)"
rc=0
"$WORK/bin/hangar-chaos" reconcile -db "$PGURL" -prefix "$PREFIX" -mail "$BASE/-/mail" \
  -orders "$WORK/k6-slo-orders.log,$WORK/k6-orders.log,$WORK/probe-orders.log,$WORK/buyers-orders.log,$WORK/burst-orders.log" -broker "127.0.0.1:$BROKER_PORT" \
  -wait 5m >"$WORK/reconcile.txt" 2>&1 || rc=$?
# Every term the renewal command was given is renewed once, with an order that exists,
# whichever of the command and the service's workers did it.
read -r terms_ok terms_other <<<"$(pg_in checkout "SELECT count(*) FILTER (WHERE rn.status = 'renewed' AND EXISTS (SELECT 1 FROM orders o WHERE o.invoice_id = rn.invoice_id)),
    count(*) FILTER (WHERE NOT (rn.status = 'renewed' AND EXISTS (SELECT 1 FROM orders o WHERE o.invoice_id = rn.invoice_id)))
  FROM renewals rn JOIN subscriptions s ON s.id = rn.subscription_id WHERE s.email LIKE '%@renewal.test'" | tr '|' ' ')"
renewals_line="renewal terms due beside the service: $RENEWALS; renewed once with their order $terms_ok; otherwise $terms_other"

restarts=$(processes | jq -r 'to_entries | map("\(.key) \(.value.restarts)") | join(", ")')
{
  echo
  echo "== chaos run $(date -u +%FT%TZ) ($([[ $SHORT == 1 ]] && echo short || echo full); load average $(cut -d' ' -f1-3 /proc/loadavg)) =="
  echo "$slo_line"
  echo "recovery after each fault (seconds from the fault; limit $RECOVERY_LIMIT s for the purchase):"
  printf '  %s\n' "${results[@]}"
  echo "restarts: $restarts"
  echo "$buyers_line"
  grep -E 'failed:|waited' "$WORK/buyers.log" | sed 's/^/  /' || true
  echo "$burst_line"
  grep -E 'failed:' "$WORK/burst.log" | sed 's/^/  /' || true
  echo "$renew_line"
  echo "$renewals_line"
  echo "load (k6): $(jq -r '"\(.metrics.iterations.count) journeys, \(.metrics.http_reqs.count) requests, failed \(.metrics.http_req_failed.value * 10000 | round / 100)%, orders \(.metrics.orders.count), submit retries \(.metrics.submit_retries.count // 0)"' "$WORK/k6-summary.json" 2>/dev/null || echo 'no summary')"
  cat "$WORK/reconcile.txt"
} | tee "$WORK/summary.txt"

((rc == 0)) || { echo "chaos: reconciliation FAILED" >&2; exit 1; }
((buyers_rc == 0)) || { echo "chaos: buyers saw failures during the single-replica kills (see $WORK/buyers.log)" >&2; exit 1; }
((burst_rc == 0)) || { echo "chaos: the burst's buyers saw failures at the checkout kill (see $WORK/burst.log)" >&2; exit 1; }
((terms_ok == RENEWALS && terms_other == 0)) || { echo "chaos: not every due term was renewed once with its order (see $WORK/renew.out)" >&2; exit 1; }
# The SLO phase is reported, not held against the run: on the shared 2-core machine the
# login bound (argon2id, p99 < 500 ms over a few dozen logins) is met or missed by the
# neighbours' load (docs/reliability.md). CHAOS_SLO_STRICT=1 fails the run on it.
if [[ $slo != PASS ]]; then
  echo "chaos: the load missed an SLO threshold without faults (see $WORK/k6-slo.out)" >&2
  [[ ${CHAOS_SLO_STRICT:-0} == 1 ]] && exit 1
fi
((fail == 0)) || { echo "chaos: a recovery took $RECOVERY_LIMIT s or more (or never happened)" >&2; exit 1; }
echo "chaos: PASS"
