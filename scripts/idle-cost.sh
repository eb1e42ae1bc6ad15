#!/usr/bin/env bash
# What an idle store costs (issue 44: <= 10 ms/s of hangar-dev CPU, <= 5 ms/s of PostgreSQL),
# against a running in-process hangar-dev with no traffic:
#   scripts/idle-cost.sh [SECONDS] [OUT_DIR]      (SECONDS default 60)
# BASE_URL (default http://localhost:8080) is its edge, HANGAR_DB_PREFIX (default hangar_)
# names its databases, SETTLE (default 0) seconds are waited first (a stack just started is
# still warming: migrations, first fetches, pools filling). Over SECONDS it reads
#   - hangar-dev's CPU (/proc/<pid>/stat utime+stime of the process listening on BASE_URL),
#   - the CPU of the PostgreSQL backends connected to the stack's databases (pg_stat_activity
#     pid -> /proc/<pid>/schedstat, in nanoseconds: at an idle store's few ms a second the
#     10 ms ticks of /proc/<pid>/stat are most of the figure; a backend that ends inside the
#     window loses its share, one that starts counts whole),
#   - each database's transactions (pg_stat_database commits + rollbacks),
#   - each service pool's statements (hangar_db_statements_total on its admin /metrics),
# takes a CPU profile of hangar-dev over the window (admin /debug/pprof/profile) and prints
# per second: `idle: store X ms/s; postgres Y ms/s; Z xact/s; S statements/s; load L`.
# The psql and curl calls of this script itself run only at the window's ends (the
# profile's request aside), its scrapes outside the window.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_IDLE=${1:-60}
OUT=${2:-$(mktemp -d /tmp/idle-cost.XXXXXX)}
BASE_URL=${BASE_URL:-http://localhost:8080}
PREFIX=${HANGAR_DB_PREFIX:-hangar_}
PGURL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
mkdir -p "$OUT"

# shellcheck source=scripts/perf-lib.sh
source scripts/perf-lib.sh
pid=$(stack_pid)
tck=$(getconf CLK_TCK)

# backend_cpu: pid and CPU nanoseconds of each backend of the stack's databases (a backend
# is one thread: its schedstat is all of it).
backend_cpu() {
  pg "SELECT pid FROM pg_stat_activity WHERE left(datname, length('${PREFIX}')) = '${PREFIX}'" | while read -r p; do
    read -r ns _ < "/proc/$p/schedstat" 2>/dev/null && echo "$p $ns"
  done
}
xacts() { pg "SELECT datname, xact_commit + xact_rollback FROM pg_stat_database WHERE left(datname, length('${PREFIX}')) = '${PREFIX}' ORDER BY 1"; }
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

curl -fsS "$BASE_URL/-/ready" >/dev/null || { echo "$BASE_URL is not ready" >&2; exit 1; }
sleep "${SETTLE:-0}"
admin=$(admins | awk 'NR == 1 { print $2 }')

# The scrapes first: some collectors query the database (the mail queue's depth), which
# is this script's doing, not the store's.
statements > "$OUT/stmts0"; xacts > "$OUT/xacts0"; backend_cpu > "$OUT/pg0"
c0=$(proc_cpu "$pid")
curl -fsS -o "$OUT/cpu.pprof" "http://$admin/debug/pprof/profile?seconds=$SECONDS_IDLE" &
prof=$!
sleep "$SECONDS_IDLE"
c1=$(proc_cpu "$pid")
backend_cpu > "$OUT/pg1"; xacts > "$OUT/xacts1"; statements > "$OUT/stmts1"
wait "$prof" || echo "(no profile)" >&2
load=$(cut -d' ' -f1-3 /proc/loadavg)

# A backend's share: its nanoseconds at the end less those at the start (all if it started
# inside).
pgns=$(awk 'NR == FNR { a[$1] = $2; next } { t += $2 - ($1 in a ? a[$1] : 0) } END { print t + 0 }' "$OUT/pg0" "$OUT/pg1")
xact=$(awk 'NR == FNR { a[$1] = $2; next } { t += $2 - a[$1] } END { print t + 0 }' "$OUT/xacts0" "$OUT/xacts1")
stmts=$(awk 'NR == FNR { a[$1] = $2; next } { t += $2 - a[$1] } END { print t + 0 }' "$OUT/stmts0" "$OUT/stmts1")
echo "per database, transactions:"
awk 'NR == FNR { a[$1] = $2; next } { printf "  %s %d\n", $1, $2 - a[$1] }' "$OUT/xacts0" "$OUT/xacts1"
echo "per pool, statements:"
awk 'NR == FNR { a[$1] = $2; next } $2 - a[$1] > 0 { printf "  %s %d\n", $1, $2 - a[$1] }' "$OUT/stmts0" "$OUT/stmts1"
echo "(profile: go tool pprof -top $OUT/cpu.pprof)"
awk -v c="$((c1 - c0))" -v p="$pgns" -v x="$xact" -v s="$stmts" -v n="$SECONDS_IDLE" -v t="$tck" -v l="$load" 'BEGIN {
  printf "idle: store %.1f ms/s; postgres %.1f ms/s; %.2f xact/s; %.2f statements/s; load %s\n",
    c * 1000 / t / n, p / 1e6 / n, x / n, s / n, l }'
