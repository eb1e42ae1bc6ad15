#!/usr/bin/env bash
# Measures the catalogue hot read against a bare net/http handler serving the same bytes,
# in one k6 run on this machine, then checks p99 at a constant 1,000 requests/s through
# the edge. Results: loadtest/compare-result.txt and the k6 summaries on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
EDGE=127.0.0.1:18080
BARE=127.0.0.1:18090
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

scripts/ensure-postgres.sh
go build -o bin/hangar-dev ./cmd/hangar-dev
go build -o bin/bare ./loadtest/bare
EDGE_ADDR=$EDGE FIELDS_ADDR=127.0.0.1:18091 LOG_LEVEL=warn bin/hangar-dev >/tmp/hangar-perf.log 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -fsS "http://$EDGE/-/ready" >/dev/null 2>&1 && break; sleep 0.5; done
service=$(curl -fsS "http://$EDGE/-/ready" | python3 -c 'import json,sys; print(json.load(sys.stdin)["backends"]["catalog"])')
bin/bare -addr "$BARE" -from "http://$EDGE/account/api/subscription/available/add-ons" &
pids+=($!)
sleep 0.5
echo "== throughput: bare handler vs service vs edge (same bytes, gzip) =="
bin/k6 run --quiet -e BARE_URL="http://$BARE" -e SERVICE_URL="$service" -e EDGE_URL="http://$EDGE" \
  -e VUS="${VUS:-32}" -e PHASE="${PHASE:-20s}" loadtest/compare.js
echo "== latency at a constant ${RATE:-1000} requests/s through the edge =="
bin/k6 run --quiet -e SHAPE=rate -e RATE="${RATE:-1000}" -e DURATION="${DURATION:-30s}" -e BASE_URL="http://$EDGE" loadtest/catalog.js
