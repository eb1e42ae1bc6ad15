#!/usr/bin/env bash
# Checks and unit-tests the chart's alerting and recording rules with promtool
# (`make test-rules`, part of `make test`):
#   1. promtool from Debian's prometheus package (scripts/ensure-prometheus.sh) and the
#      pinned helm (scripts/helm-check.sh --tools);
#   2. renders the chart with every component and every rule on
#      (deploy/helm/cluster-values.yaml, release "hangar", namespace "store") and turns each
#      PrometheusRule into a plain rule file (deploy/helm/check/cmd/promrules);
#   3. `promtool check rules` on every file;
#   4. `promtool test rules` on deploy/helm/rules-tests/*_test.yaml, which name the generated
#      files as rules/<PrometheusRule name>.rules.yaml.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
export GOWORK=off CGO_ENABLED=0

"$ROOT/scripts/ensure-prometheus.sh"
"$ROOT/scripts/helm-check.sh" --tools >/dev/null

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export HELM_CACHE_HOME="$WORK/helm/cache" HELM_CONFIG_HOME="$WORK/helm/config" HELM_DATA_HOME="$WORK/helm/data"

(cd "$ROOT/deploy/helm/check" && go build -o "$WORK/promrules" ./cmd/promrules)
"$BIN/helm" template hangar "$ROOT/deploy/helm/hangar" --namespace store --kube-version 1.36.3 \
  -f "$ROOT/deploy/helm/cluster-values.yaml" -f "$ROOT/deploy/helm/test-secrets-values.yaml" --set componentDefaults.image.tag=1.0.0 |
  "$WORK/promrules" -out "$WORK/rules"

echo "==> promtool check rules"
promtool check rules "$WORK"/rules/*.yaml

echo "==> promtool test rules"
cp "$ROOT"/deploy/helm/rules-tests/*_test.yaml "$WORK/"
(cd "$WORK" && promtool test rules ./*_test.yaml)
