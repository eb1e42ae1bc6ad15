#!/usr/bin/env bash
# Renewal season exactly once, with the faults (issue 39): N due card subscriptions
# (default 10,000; their terms ended in the last hour), the store running (multi-process
# mode, its renewal scheduler every 5 s and its workers renewing them) and, beside it, the
# operator's `checkout renew -as-of <today> -window 168h`, which
#   1. runs beside the service from the start and is killed with SIGKILL once a tenth of
#      the terms are charged (mid-pass: claims held, charges made and not written),
#   2. is rerun at once with the same arguments, and that run is paused with SIGSTOP for
#      RF_PAUSE seconds (20: past the submit lease, 10 s, and the renewal lease, 15 s, on
#      the database's clock: the service's reconciler and workers take its claims over)
#      once a quarter are charged, then resumed with SIGCONT and left to finish,
#   3. is run once more with the same arguments, which finds nothing left.
# Then `hangar-chaos reconcile` waits for the store to settle and reconciles the processor's
# captures, payments' charges, the orders and the receipts one to one (a capture without an
# order, a term charged twice, an order told and not written all fail it), and the script
# checks that every seeded term is renewed once, with an order that exists.
#
#   scripts/renewal-faults.sh [N]
#
# Runs on the machine's PostgreSQL (DATABASE_URL, default 127.0.0.1:5432) with databases of
# its own (HANGAR_DB_PREFIX, default renewal_faults_; dropped first and at the end unless
# RF_KEEP=1), the edge on
# RF_EDGE_PORT (18250) and the card-fields origin on RF_FIELDS_PORT (18251). Every process it
# starts is stopped on exit; logs stay in the work directory it prints. Not part of
# `make test` (minutes). The result is in docs/reliability.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/stack-lib.sh
export GOWORK=off GOFLAGS=-buildvcs=false

N=${1:-10000}
EDGE_PORT=${RF_EDGE_PORT:-18250}
FIELDS_PORT=${RF_FIELDS_PORT:-18251}
PREFIX=${HANGAR_DB_PREFIX:-renewal_faults_}
PGURL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
PAUSE=${RF_PAUSE:-20}
BASE="http://127.0.0.1:$EDGE_PORT"
WORK="$(mktemp -d /tmp/renewal-faults.XXXXXX)"
log() { printf '%s renewal-faults: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$WORK/run.log" >&2; }
dburl() { sed -E "s#/[^/?]*(\?|$)#/$PREFIX$1\1#" <<<"$PGURL"; }
psql_in() { psql "$(dburl "$1")" -XAtq -v ON_ERROR_STOP=1 -c "$2"; }

stack_pgid="" renew_pid=""
cleanup() {
  local rc=$?
  [[ -n "$renew_pid" ]] && { kill -CONT "$renew_pid" 2>/dev/null; kill -KILL "$renew_pid" 2>/dev/null; } || true
  [[ -n "$stack_pgid" ]] && kill -TERM -- "-$stack_pgid" 2>/dev/null || true
  wait 2>/dev/null || true
  if [[ ${RF_KEEP:-0} != 1 ]]; then
    for svc in allocation catalog checkout geo identity notifications payments; do
      psql "$PGURL" -XAtq -c "DROP DATABASE IF EXISTS \"$PREFIX$svc\" WITH (FORCE)" >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$WORK/bin"
  if ((rc != 0)); then log "FAILED (exit $rc); logs in $WORK"; else log "logs in $WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for p in "$EDGE_PORT" "$FIELDS_PORT"; do
  port_free "$p" || { echo "renewal-faults: port $p is in use" >&2; exit 1; }
done

log "building hangar-dev, checkout and hangar-chaos (work dir $WORK)"
mkdir -p "$WORK/bin"
go build -o "$WORK/bin/hangar-dev" ./cmd/hangar-dev
go build -o "$WORK/bin/checkout" ./services/checkout/cmd/checkout
go build -o "$WORK/bin/hangar-chaos" ./cmd/hangar-chaos

for svc in allocation catalog checkout geo identity notifications payments; do
  psql "$PGURL" -XAtq -c "DROP DATABASE IF EXISTS \"$PREFIX$svc\" WITH (FORCE)" >/dev/null
done

log "hangar-dev in multi-process mode on $BASE (databases $PREFIX*)"
setsid env HANGAR_DEV_PROCESSES=true HANGAR_DEV_REPLICAS=1 EDGE_ADDR="127.0.0.1:$EDGE_PORT" FIELDS_ADDR="127.0.0.1:$FIELDS_PORT" \
  DATABASE_URL="$PGURL" HANGAR_DB_PREFIX="$PREFIX" HANGAR_DEV_BIN="$WORK/bin/dev" HANGAR_DEV_MAIL_MAX=$((2 * N + 1000)) \
  CHECKOUT_RENEWAL_INTERVAL=5s LOG_LEVEL=warn \
  "$WORK/bin/hangar-dev" >"$WORK/stack.log" 2>&1 &
stack_pgid=$!
stack_wait_ready renewal-faults "$stack_pgid" "$BASE" "$WORK/stack.log" 900
procs=$(curl -fsS "$BASE/-/processes")
CATALOG_ADDR=$(jq -r .catalog.grpc <<<"$procs")
PAYMENTS_ADDR=$(jq -r .payments.grpc <<<"$procs")
log "stack up (catalog $CATALOG_ADDR, payments $PAYMENTS_ADDR)"

# The pilot's account balance would be spent by the first of its N renewals, and the rest,
# priced with it, refunded as "balance changed" and tried again: a balance race, not this
# run's subject. It starts at nothing.
psql_in checkout "DELETE FROM account_balances WHERE account_id = '00000000-0000-4000-8000-000000000001'"
log "seeding $N card subscriptions whose terms ended in the last hour"
seed_pilot_renewals psql_in "$N"
psql_in checkout "ANALYZE subscriptions"

TODAY=$(date -u +%F)
renew() { # the operator's command, in the background, its pid in renew_pid
  env HANGAR_DEV_MODE=true DATABASE_URL="$(dburl checkout)" CATALOG_ADDR="$CATALOG_ADDR" PAYMENTS_ADDR="$PAYMENTS_ADDR" LOG_LEVEL=warn \
    "$WORK/bin/checkout" renew -as-of "$TODAY" -window 168h >>"$WORK/renew-$1.out" 2>&1 &
  renew_pid=$!
}
charged() { psql_in payments "SELECT count(*) FROM charges WHERE reference LIKE 'renewal:%' AND status = 'captured'"; }
renewed() { psql_in checkout "SELECT count(*) FROM renewals rn JOIN subscriptions s ON s.id = rn.subscription_id WHERE s.email LIKE '%@renewal.test' AND rn.status = 'renewed'"; }

progress() { # wait until at least $1 renewal charges are captured or the pass ended
  until (($(charged) >= $1)); do
    kill -0 "$renew_pid" 2>/dev/null || return 0
    sleep 0.2
  done
}
log "1. checkout renew -as-of $TODAY -window 168h beside the running service"
renew first
progress $((N / 10))
log "   SIGKILL the pass after $(charged) captured renewal charges (renewed so far: $(renewed))"
kill -KILL "$renew_pid" 2>/dev/null || true
wait "$renew_pid" 2>/dev/null || true
log "2. the same command again at once"
renew rerun
progress $((N / 4))
log "   SIGSTOP it for ${PAUSE}s after $(charged) captured renewal charges (renewed so far: $(renewed))"
kill -STOP "$renew_pid"
sleep "$PAUSE"
kill -CONT "$renew_pid"
log "   SIGCONT (renewed so far: $(renewed))"
rerun_rc=0
wait "$renew_pid" || rerun_rc=$?
renew_pid=""
log "   rerun: $(tail -n 3 "$WORK/renew-rerun.out" | tr '\n' ' ') (exit $rerun_rc)"
log "3. the same command once more"
renew last
last_rc=0
wait "$renew_pid" || last_rc=$?
renew_pid=""
log "   last: $(tail -n 3 "$WORK/renew-last.out" | tr '\n' ' ') (exit $last_rc)"

log "reconciling (waits for the store to settle)"
rc=0
"$WORK/bin/hangar-chaos" reconcile -db "$PGURL" -prefix "$PREFIX" -mail "$BASE/-/mail" -wait 10m >"$WORK/reconcile.txt" 2>&1 || rc=$?
terms=$(psql_in checkout "SELECT count(*) FILTER (WHERE rn.status = 'renewed'),
    count(*) FILTER (WHERE rn.status = 'renewed' AND EXISTS (SELECT 1 FROM orders o WHERE o.invoice_id = rn.invoice_id)),
    count(*) FILTER (WHERE rn.status <> 'renewed')
  FROM renewals rn JOIN subscriptions s ON s.id = rn.subscription_id WHERE s.email LIKE '%@renewal.test'" | tr '|' ' ')
read -r ok withorder other <<<"$terms"
twice=$(sed -n 's/.*renewal terms charged .*charged twice: \([0-9]*\)).*/\1/p' "$WORK/reconcile.txt")
orphans=$(sed -n 's/.*captures without an order \([0-9]*\).*/\1/p' "$WORK/reconcile.txt")
{
  echo
  echo "== renewal faults $(date -u +%FT%TZ): $N due, load average $(cut -d' ' -f1-3 /proc/loadavg) =="
  echo "beside the service: killed at a tenth, rerun at once, the rerun paused ${PAUSE}s at a quarter, run once more"
  echo "terms renewed $ok of $N (with an order that exists: $withorder; other states: $other); terms charged twice ${twice:-?}; captures without an order ${orphans:-?}"
  cat "$WORK/reconcile.txt"
} | tee "$WORK/summary.txt"
((rc == 0)) || { echo "renewal-faults: reconciliation FAILED" >&2; exit 1; }
((ok == N && withorder == N && other == 0)) || { echo "renewal-faults: not every term renewed once with its order" >&2; exit 1; }
echo "renewal-faults: PASS"
