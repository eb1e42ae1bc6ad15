#!/usr/bin/env bash
# Runs a real Prometheus (Debian's package) against the services of a dev stack, with the
# chart's own rules, and asserts every target is up and every rule loads and evaluates
# (`make test-prometheus`, part of `make test`):
#   1. prometheus/promtool (scripts/ensure-prometheus.sh), helm (scripts/helm-check.sh --tools);
#   2. renders the chart's PrometheusRules (deploy/helm/cluster-values.yaml: every component
#      and rule on) into plain rule files (deploy/helm/check/cmd/promrules);
#   3. starts cmd/hangar-dev on a free loopback port (databases prefixed HANGAR_DB_PREFIX,
#      default hangar_promtest_), unless HANGAR_DEV_URL points at a running one;
#   4. starts prometheus on a free loopback port, discovering the services' admin ports
#      from hangar-dev's /-/prometheus/targets (HTTP SD: job and namespace labelled as the
#      chart's ServiceMonitors label them in the cluster), scraping and evaluating every 1 s;
#   5. deploy/helm/check/cmd/promcheck: all targets up, every rule group loaded, every rule
#      evaluated without error; then `promtool check metrics` on every target's /metrics.
# Everything it started is stopped on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
export GOWORK=off

"$ROOT/scripts/ensure-prometheus.sh"
"$ROOT/scripts/helm-check.sh" --tools >/dev/null

WORK="$(mktemp -d)"
pids=()
cleanup() {
  local rc=$?
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[$i]}" 2>/dev/null || true
    wait "${pids[$i]}" 2>/dev/null || true
  done
  if ((rc != 0)); then
    echo "test-prometheus: FAILED; logs:" >&2
    tail -n 30 "$WORK"/*.log >&2 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# free_port prints a loopback port nothing listens on (bash's /dev/tcp probe), below the
# kernel's ephemeral range: a port inside it can meanwhile become the local end of one of
# the stack's own outgoing connections (to PostgreSQL, the broker), and then prometheus
# cannot bind it (a CI run failed so: "bind: address already in use").
free_port() {
  local p low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  (( low > 21000 )) || low=32768
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % (low - 20000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

(cd "$ROOT/deploy/helm/check" && go build -o "$WORK/promrules" ./cmd/promrules && go build -o "$WORK/promcheck" ./cmd/promcheck)
export HELM_CACHE_HOME="$WORK/helm/cache" HELM_CONFIG_HOME="$WORK/helm/config" HELM_DATA_HOME="$WORK/helm/data"
"$BIN/helm" template hangar "$ROOT/deploy/helm/hangar" --namespace store --kube-version 1.36.3 \
  -f "$ROOT/deploy/helm/cluster-values.yaml" -f "$ROOT/deploy/helm/test-secrets-values.yaml" --set componentDefaults.image.tag=1.0.0 |
  "$WORK/promrules" -out "$WORK/rules"
groups=$(cat "$WORK"/rules/*.yaml | grep -c '^- name: ')

if [[ -z "${HANGAR_DEV_URL:-}" ]]; then
  (cd "$ROOT" && go build -o "$WORK/hangar-dev" ./cmd/hangar-dev)
  port=$(free_port)
  HANGAR_DEV_URL="http://127.0.0.1:$port"
  echo "test-prometheus: starting hangar-dev on $HANGAR_DEV_URL"
  (cd "$ROOT" && EDGE_ADDR="127.0.0.1:$port" FIELDS_ADDR="127.0.0.1:$(free_port)" HANGAR_DB_PREFIX="${HANGAR_DB_PREFIX:-hangar_promtest_}" \
    exec "$WORK/hangar-dev") >"$WORK/hangar-dev.log" 2>&1 &
  pids+=($!)
  deadline=$((SECONDS + 180))
  until curl -fsS "$HANGAR_DEV_URL/-/ready" >/dev/null 2>&1; do
    if ! kill -0 "${pids[0]}" 2>/dev/null; then
      echo "test-prometheus: hangar-dev exited" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      echo "test-prometheus: hangar-dev not ready after 180s: $(curl -sS "$HANGAR_DEV_URL/-/ready" 2>&1)" >&2
      exit 1
    fi
    sleep 0.5
  done
fi
curl -fsS "$HANGAR_DEV_URL/-/prometheus/targets" >"$WORK/targets.json"
ntargets=$(grep -o '"targets":\["[^"]*"\]' "$WORK/targets.json" | wc -l)
echo "test-prometheus: $ntargets services to scrape, $groups rule groups"

pport=$(free_port)
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $WORK/rules/*.yaml
scrape_configs:
  - job_name: hangar
    # As the chart's ServiceMonitors: the services' own "service" label wins.
    honor_labels: true
    http_sd_configs:
      - url: $HANGAR_DEV_URL/-/prometheus/targets
        refresh_interval: 5s
YAML
promtool check config "$WORK/prometheus.yml"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
pids+=($!)
echo "test-prometheus: prometheus on 127.0.0.1:$pport"

"$WORK/promcheck" -url "http://127.0.0.1:$pport" -targets "$ntargets" -groups "$groups" -timeout 2m

# Metric names and help texts of every service pass Prometheus' own linter.
for addr in $(grep -o '"targets":\["[^"]*"\]' "$WORK/targets.json" | sed 's/.*\["\(.*\)"\]/\1/'); do
  curl -fsS "http://$addr/metrics" | promtool check metrics
done
echo "test-prometheus: promtool check metrics passed for $ntargets services"
