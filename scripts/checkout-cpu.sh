#!/usr/bin/env bash
# CPU per order of the checkout journey (loadtest/checkout.js) against a running hangar-dev
# in its default in-process mode (every service, the edge and the broker in one process):
#   scripts/checkout-cpu.sh [SHAPE] [OUT_DIR]      (SHAPE smoke|rate|count, default smoke)
# BASE_URL (default http://localhost:8080) is the edge, FIELDS_URL (default
# http://localhost:8081) the card-fields origin; HANGAR_DB_PREFIX (default hangar_) names the
# stack's databases; VALIDATE=1 adds the /validate the buy page posted before its submit. Before and after the k6 run it reads
#   - hangar-dev's CPU time (/proc/<pid>/stat of the process listening on BASE_URL's port),
#   - the CPU time of the PostgreSQL backends connected to the stack's databases,
#   - each database's committed and rolled-back transactions (pg_stat_database),
#   - each service pool's statements (hangar_db_statements_total on its admin /metrics),
#   - each service's outbound calls (hangar_client_requests_total, same place: gRPC, and the
#     human verification's HTTP call),
# and takes a CPU profile of hangar-dev over the run (admin /debug/pprof/profile, never the
# public edge; PROFILE_SECONDS, default 8, from the run's start). It prints each per order,
# hangar-dev's CPU whole and split: its development stand-ins' (the in-process broker, the
# SMTP mail sink, the human verifier and the sandbox card processor, in production Kafka, an
# SMTP relay, Google and a processor, not the store; their goroutines carry the pprof label hangar.standin, internal/standin), each
# one's being hangar-dev's CPU times its share of the profile's samples
# (cmd/standin-share), and the store's, hangar-dev less the stand-ins, beside the
# PostgreSQL backends'. The store's side of them (kafka-go producers and
# consumers, the SMTP client, the siteverify calls) is the store's, and so is what the
# stand-ins cost the runtime beyond their own goroutines (collecting their garbage,
# scheduling). The idle figures are hangar-dev's whole. What it cannot see: PostgreSQL's
# shared processes (WAL writer, checkpointer) and k6's own CPU, which is not the store's.
#
#   scripts/checkout-cpu.sh --compare [SHAPE] REV...
# measures each revision in one run, one after the other on the same machine: for each it
# builds that revision's hangar-dev (git archive into a temporary directory), starts it
# in-process on CPU_EDGE_PORT (18260) and CPU_FIELDS_PORT (18261) with fresh databases of its
# own (prefix ${CPU_DB_PREFIX:-cpu_}<rev>_, dropped afterwards), runs this measurement with that revision's
# loadtest/checkout.js, and stops it. Revisions the current tree names (HEAD, main,
# 0da81a4) are fine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--compare" ]]; then
  shift
  shape=smoke
  [[ "${1:-}" == smoke || "${1:-}" == rate || "${1:-}" == count ]] && { shape=$1; shift; }
  (($# > 0)) || { echo "usage: $0 --compare [SHAPE] REV..." >&2; exit 2; }
  edge=${CPU_EDGE_PORT:-18260} fields=${CPU_FIELDS_PORT:-18261}
  pgurl=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
  k6=$(realpath "${K6:-bin/k6}")
  [[ -x "$k6" ]] || { echo "no k6 at $k6 (make k6)" >&2; exit 1; }
  work=$(mktemp -d /tmp/checkout-cpu-compare.XXXXXX)
  # shellcheck source=scripts/perf-lib.sh
  source scripts/perf-lib.sh
  # Built from this tree: older revisions have none (and no stand-in labels: their
  # stand-ins count as 0, inside their store's figure).
  STANDIN_SHARE=$(standin_tool "$work") || { echo "cmd/standin-share not built" >&2; exit 1; }
  export STANDIN_SHARE
  stack=""
  stop_stack() { [[ -n "$stack" ]] && { kill -TERM -- "-$stack" 2>/dev/null; wait "$stack" 2>/dev/null; stack=""; } || true; }
  trap stop_stack EXIT
  for rev in "$@"; do
    sha=$(git rev-parse --short=12 "$rev^{commit}")
    tree="$work/$sha" prefix="${CPU_DB_PREFIX:-cpu_}${sha}_"
    mkdir -p "$tree"
    git archive "$sha" | tar -x -C "$tree"
    echo "== $rev ($sha): building hangar-dev" >&2
    (cd "$tree" && GOWORK=off GOFLAGS=-buildvcs=false go build -o "$tree/hangar-dev" ./cmd/hangar-dev)
    for svc in allocation catalog checkout geo identity notifications payments; do
      psql "$pgurl" -XAtq -c "DROP DATABASE IF EXISTS \"$prefix$svc\" WITH (FORCE)" >/dev/null 2>&1
    done
    (cd "$tree" && exec setsid env EDGE_ADDR="127.0.0.1:$edge" FIELDS_ADDR="127.0.0.1:$fields" DATABASE_URL="$pgurl" HANGAR_DB_PREFIX="$prefix" \
      LOG_LEVEL=warn ./hangar-dev >"$work/$sha.stack.log" 2>&1) &
    stack=$!
    until curl -fsS "http://127.0.0.1:$edge/-/ready" >/dev/null 2>&1; do
      kill -0 "$stack" 2>/dev/null || { echo "$rev: hangar-dev exited (see $work/$sha.stack.log)" >&2; exit 1; }
      sleep 1
    done
    # A first order warms the stack (connections, caches) outside the measurement.
    (cd "$tree" && GOMAXPROCS=1 "$k6" run -q -e SHAPE=smoke -e BASE_URL="http://127.0.0.1:$edge" -e FIELDS_URL="http://127.0.0.1:$fields" \
      --iterations 5 loadtest/checkout.js >/dev/null 2>&1) || true
    echo "== $rev ($sha)"
    # This measurement, with the library it sources, in the revision's tree: older trees
    # have neither this version nor scripts/perf-lib.sh.
    cp "$0" "$tree/scripts/checkout-cpu-current.sh"
    cp scripts/perf-lib.sh "$tree/scripts/perf-lib.sh"
    (cd "$tree" && BASE_URL="http://127.0.0.1:$edge" FIELDS_URL="http://127.0.0.1:$fields" HANGAR_DB_PREFIX="$prefix" DATABASE_URL="$pgurl" K6="$k6" \
      bash scripts/checkout-cpu-current.sh "$shape" "$work/$sha")
    stop_stack
    for svc in allocation catalog checkout geo identity notifications payments; do
      psql "$pgurl" -XAtq -c "DROP DATABASE IF EXISTS \"$prefix$svc\" WITH (FORCE)" >/dev/null 2>&1
    done
  done
  echo "(work dir $work)"
  exit 0
fi

SHAPE=${1:-smoke}
OUT=${2:-$(mktemp -d /tmp/checkout-cpu.XXXXXX)}
BASE_URL=${BASE_URL:-http://localhost:8080}
PREFIX=${HANGAR_DB_PREFIX:-hangar_}
PGURL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
K6=${K6:-bin/k6}
PROFILE_SECONDS=${PROFILE_SECONDS:-8}
mkdir -p "$OUT"

# shellcheck source=scripts/perf-lib.sh
source scripts/perf-lib.sh
pid=$(stack_pid)
tck=$(getconf CLK_TCK)
share=$(standin_tool "$OUT") || { echo "cmd/standin-share not built" >&2; exit 1; }

# backend_cpu: each backend of the stack's databases (database:pid) with its CPU ticks. The
# figures are differences by backend between two of these: one that ended in between (a
# pool's idle connection closed) counts nothing, rather than taking its earlier CPU off.
backend_cpu() {
  pg "SELECT datname, pid FROM pg_stat_activity WHERE starts_with(datname, '${PREFIX}')" | while read -r db p; do
    echo "$db:$p $(proc_cpu "$p")"
  done
}
xacts() { pg "SELECT datname, xact_commit + xact_rollback FROM pg_stat_database WHERE starts_with(datname, '${PREFIX}') ORDER BY 1"; }
admins() { curl -fsS "$BASE_URL/-/prometheus/targets" | python3 -c '
import json, sys
for g in json.load(sys.stdin):
    print(g["labels"]["component"], g["targets"][0])'; }
statements() {
  local name addr
  while read -r name addr; do
    curl -fsS "http://$addr/metrics" | awk -v s="$name" '/^hangar_db_statements_total/ {
      match($0, /pool="[^"]*"/); pool = substr($0, RSTART + 6, RLENGTH - 7); n[pool] += $NF }
      END { for (p in n) print s "/" p, n[p] }'
  done < <(admins) | sort
}

# calls: each service's outbound calls (hangar_client_requests_total), by caller and callee
# method.
calls() {
  local name addr
  while read -r name addr; do
    curl -fsS "http://$addr/metrics" | awk -v s="$name" '/^hangar_client_requests_total/ {
      match($0, /client="[^"]*"/); c = substr($0, RSTART + 8, RLENGTH - 9)
      match($0, /method="[^"]*"/); m = substr($0, RSTART + 8, RLENGTH - 9); sub(/.*\//, "", m)
      n[c "." m] += $NF }
      END { for (k in n) print s "->" k, n[k] }'
  done < <(admins) | sort
}

admin=$(admins | awk 'NR == 1 { print $2 }')
# The idle stack's own CPU (relays, consumers and the mail sender polling), measured first
# and subtracted from the run's, so orders at different rates compare.
IDLE_SECONDS=${IDLE_SECONDS:-5}
i0=$(proc_cpu "$pid")
xacts > "$OUT/xactsi0"; statements > "$OUT/stmtsi0"; calls > "$OUT/callsi0"; backend_cpu > "$OUT/pgcpui0"
sleep "$IDLE_SECONDS"
i1=$(proc_cpu "$pid")
xacts > "$OUT/xactsi1"; statements > "$OUT/stmtsi1"; calls > "$OUT/callsi1"; backend_cpu > "$OUT/pgcpui1"
cpu0=$(proc_cpu "$pid"); t0=$(date +%s.%N)
xacts > "$OUT/xacts0"; statements > "$OUT/stmts0"; calls > "$OUT/calls0"; backend_cpu > "$OUT/pgcpu0"

k0=$(cut -d' ' -f16,17 /proc/$$/stat)  # this shell's waited-for children: k6 (curl, psql: negligible)
curl -fsS -o "$OUT/cpu.pprof" "http://$admin/debug/pprof/profile?seconds=$PROFILE_SECONDS" &
prof=$!
# k6 runs with the collection target and the one P the Makefile gives it (its own CPU shares these cores).
GOGC=${GOGC:-400} GOMAXPROCS=${K6_GOMAXPROCS:-1} "$K6" run -q -e SHAPE="$SHAPE" -e BASE_URL="$BASE_URL" -e FIELDS_URL="${FIELDS_URL:-http://localhost:8081}" -e VALIDATE="${VALIDATE:-}" -e ITERATIONS="${ITERATIONS:-25}" --summary-export "$OUT/summary.json" loadtest/checkout.js \
  > "$OUT/k6.txt" 2>&1 || echo "k6: thresholds not met (see $OUT/k6.txt)"
wait "$prof" || echo "profile failed"
"$share" "$OUT/cpu.pprof" >"$OUT/standins" 2>"$OUT/standins.err" || : >"$OUT/standins"
k1=$(cut -d' ' -f16,17 /proc/$$/stat)
k6cpu=$(( ${k1% *} + ${k1#* } - ${k0% *} - ${k0#* } ))

cpu1=$(proc_cpu "$pid"); t1=$(date +%s.%N)
xacts > "$OUT/xacts1"; statements > "$OUT/stmts1"; calls > "$OUT/calls1"; backend_cpu > "$OUT/pgcpu1"

orders=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"]["orders"]["count"]))' "$OUT/summary.json")
[[ "$orders" -gt 0 ]] || { echo "no orders completed (see $OUT/k6.txt)" >&2; exit 1; }
PREFIX=$PREFIX python3 - "$OUT" "$orders" "$cpu0" "$cpu1" "$tck" "$i0" "$i1" "$IDLE_SECONDS" "$t0" "$t1" "$k6cpu" <<'EOF'
import json, os, sys
out, n = sys.argv[1], int(sys.argv[2])
cpu0, cpu1, tck, i0, i1 = (int(x) for x in sys.argv[3:8])
idle_s, t0, t1 = (float(x) for x in sys.argv[8:11])
k6 = int(sys.argv[11])
def table(name):
    rows = {}
    for line in open(os.path.join(out, name)):
        k, v = line.split()
        rows[k] = float(v)
    return rows
def delta(a, b, idle=None):
    """b less a; with idle (the same counters over the idle window), less what the idle
    stack would have done over the run's duration."""
    x0, x1 = table(a), table(b)
    d = {k: x1[k] - x0.get(k, 0) for k in x1}
    if idle:
        i0, i1 = table(idle[0]), table(idle[1])
        for k in d:
            d[k] -= (i1.get(k, 0) - i0.get(k, 0)) / idle_s * (t1 - t0)
    return {k: v for k, v in sorted(d.items()) if v > 0}
def backends(a, b):
    """The backends' CPU ticks from a to b by database: of those still there at b (and at a,
    or new since)."""
    x0, x1, d = table(a), table(b), {}
    for k, v in x1.items():
        db = k.split(":")[0]
        d[db] = d.get(db, 0) + v - x0.get(k, 0)
    return dict(sorted(d.items()))
pgrun, pgidle = backends("pgcpu0", "pgcpu1"), backends("pgcpui0", "pgcpui1")
pg0, pg1, ip0, ip1 = 0, sum(pgrun.values()), 0, sum(pgidle.values())
s = json.load(open(os.path.join(out, "summary.json")))["metrics"]
# The rate shape's SLO is judged on its steady part (phase steady), after the ramp.
dur = s.get("http_req_duration{name:submit,phase:steady}") or s.get("http_req_duration{name:submit}", {})
steady = s.get("orders{phase:steady}", {}).get("count")
load = open("/proc/loadavg").read().split()[:3]
print(f"orders {n} ({s['orders']['rate']:.1f}/s over the run{f', {steady:.0f} in the steady part' if steady else ''})  submit p50 {dur.get('med', 0):.1f} ms  p99 {dur.get('p(99)', 0):.1f} ms  load average {' '.join(load)}")
app, db = (cpu1 - cpu0) / tck / n * 1000, (pg1 - pg0) / tck / n * 1000
print(f"CPU per order: hangar-dev {app:.2f} ms + PostgreSQL backends {db:.2f} ms = {app + db:.2f} ms")
share = {k: int(v) for k, v in (line.split() for line in open(os.path.join(out, "standins")))}
total = share.pop("total", 0)
if total:
    # A stand-in's CPU: hangar-dev's times the stand-in's share of the profile's samples.
    parts = {k: app * v / total for k, v in share.items()}
    st = sum(parts.values())
    print(f"  hangar-dev's stand-ins (by their label in its profile): {st:.2f} ms (" + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()) + ")"
          + ("" if st else "; none labelled: a build before the labels counts them with the store"))
    print(f"  the store: hangar-dev less the stand-ins {app - st:.2f} ms + PostgreSQL backends {db:.2f} ms = {app - st + db:.2f} ms")
else:
    print(f"  hangar-dev's stand-ins: unknown (no CPU profile read; see {os.path.join(out, 'standins.err')})")
# Less what the idle stack would have spent over the run's duration.
iapp = (i1 - i0) / tck / idle_s * (t1 - t0) / n * 1000
idb = (ip1 - ip0) / tck / idle_s * (t1 - t0) / n * 1000
print(f"  less idle ({(i1 - i0 + ip1 - ip0) / tck / idle_s * 1000:.0f} ms/s): hangar-dev {app - iapp:.2f} ms + PostgreSQL {db - idb:.2f} ms = {app + db - iapp - idb:.2f} ms per order")
print(f"  k6 itself (the load generator, on the same cores): {k6 / tck / n * 1000:.2f} ms per order")
print("PostgreSQL CPU per order by database (ms):", ", ".join(f"{k.removeprefix(os.environ.get('PREFIX', ''))} {v / tck / n * 1000:.2f}" for k, v in pgrun.items()))
# Counts less the idle stack's (relays, consumers and pollers), as the CPU above.
print("transactions per order:", ", ".join(f"{k.removeprefix(os.environ.get('PREFIX', ''))} {v / n:.1f}" for k, v in delta("xacts0", "xacts1", ("xactsi0", "xactsi1")).items() if v / n >= 0.05))
st = delta("stmts0", "stmts1", ("stmtsi0", "stmtsi1"))
print(f"statements per order:   {sum(st.values()) / n:.1f} (" + ", ".join(f"{k} {v / n:.1f}" for k, v in st.items() if v / n >= 0.05) + ")")
c = delta("calls0", "calls1", ("callsi0", "callsi1"))
print(f"outbound calls per order: {sum(c.values()) / n:.1f} (" + ", ".join(f"{k} {v / n:.1f}" for k, v in c.items() if v / n >= 0.05) + ")")
EOF
echo "profile: go tool pprof -top $OUT/cpu.pprof   (k6 output: $OUT/k6.txt)"
