#!/usr/bin/env bash
# Installs the Helm chart on a real Kubernetes API server on loopback and rolls it forward
# and back (`make test-cluster`, part of `make test`):
#   1. builds the pinned etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
#      kwok into ./bin once (scripts/cluster-tools.sh; ~13+ minutes the first time on 2 cores,
#      seconds afterwards) and the pinned helm (scripts/helm-check.sh --tools);
#   2. fetches the prometheus-operator CRDs (ServiceMonitor, PrometheusRule) from the
#      operator's Go module through the module proxy;
#   3. runs deploy/helm/check/cmd/clustertest: control plane on free loopback ports with
#      state in a temporary directory, three kwok nodes, `helm install --wait` of every
#      component (deploy/helm/cluster-values.yaml), every rendered object on the server,
#      Deployments Available on kwok nodes, HPA minimums, PDBs healthy; `helm upgrade`
#      to a new image tag while watching that no component drops below its PDB; `helm
#      rollback`; `helm uninstall`. Every process it started is stopped at the end (also
#      on failure or Ctrl-C); the logs of a failed run are kept and their path printed.
#
# Usage: scripts/test-cluster.sh [--keep]   (--keep: keep state and logs of a passing run)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
PROMETHEUS_OPERATOR_VERSION=v0.85.0
export GOWORK=off CGO_ENABLED=0

start=$SECONDS
"$ROOT/scripts/cluster-tools.sh"
"$ROOT/scripts/helm-check.sh" --tools

crds="$(cd "$ROOT/deploy/helm/check" && go mod download -json \
  "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')/example/prometheus-operator-crd"
[[ -f "$crds/monitoring.coreos.com_prometheusrules.yaml" ]] || {
  echo "test-cluster: no prometheus-operator CRDs in $crds" >&2
  exit 1
}

(cd "$ROOT/deploy/helm/check" && go build -o "$BIN/clustertest" ./cmd/clustertest)
echo "test-cluster: tools ready ($((SECONDS - start))s)"
cd "$ROOT"
"$BIN/clustertest" -bin "$BIN" -chart deploy/helm/hangar -values deploy/helm/cluster-values.yaml,deploy/helm/test-secrets-values.yaml \
  -crds "$crds" "$@"
echo "test-cluster: passed in $((SECONDS - start))s"
