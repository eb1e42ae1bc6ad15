#!/usr/bin/env bash
# Builds the pinned control-plane binaries scripts/test-cluster.sh runs, from the Go module
# proxy alone (no image registry, no GitHub downloads), into <repo>/bin:
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (+ kwok's stage files)
# Each binary is rebuilt only when missing or built from another version: the version is read
# back from the binary itself (`go version -m`), so ./bin is the cache and a version bump here
# is the cache key. First build: about 13 minutes on 2 cores; afterwards a few seconds.
#
# etcd and kubernetes cannot be `go install`ed directly (replace directives in their go.mod), so
# each is built from a throwaway wrapper module that requires the pinned version (and, for
# kubernetes, maps every staging module k8s.io/<m> to its published v0.<minor>.<patch>).
#
# Usage: scripts/cluster-tools.sh            build what is missing, print the versions
#        scripts/cluster-tools.sh --node     the control plane with a real node's kubelet,
#                                            kube-proxy and kubectl instead of kwok
#                                            (scripts/test-k8s.sh; 1-2 minutes each more)
#        scripts/cluster-tools.sh --print    print the pinned versions as shell assignments
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"

ETCD_VERSION=v3.6.5
KUBE_VERSION=v1.34.1
KWOK_VERSION=v0.8.0

NODE=false
[[ "${1:-}" == "--node" ]] && NODE=true

if [[ "${1:-}" == "--print" ]]; then
  echo "ETCD_VERSION=$ETCD_VERSION KUBE_VERSION=$KUBE_VERSION KWOK_VERSION=$KWOK_VERSION"
  exit 0
fi

# A go.work elsewhere must not capture the wrapper modules; no cgo keeps the binaries static.
export GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false

# dep_version BINARY MODULE: the version of MODULE inside the Go binary (main module or dep).
dep_version() {
  [[ -x "$1" ]] || return 0
  go version -m "$1" 2>/dev/null | awk -v m="$2" '($1 == "mod" || $1 == "dep") && $2 == m { print $3; exit }'
}

mkdir -p "$BIN"
start=$SECONDS
built=()

# Builds run one at a time: on a shared 2-core machine parallel link steps only thrash memory.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if ! $NODE && [[ "$(dep_version "$BIN/kwok" sigs.k8s.io/kwok)" != "$KWOK_VERSION" ]]; then
  echo "cluster-tools: building kwok $KWOK_VERSION (about 2 minutes)"
  GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  built+=(kwok)
fi
# kwok exits "no stages found" without stage files; they ship in its module. Copy them next to
# the binary, keyed by version, so the cluster test needs no module cache lookup.
STAGES="$BIN/kwok-stages-$KWOK_VERSION"
if ! $NODE && [[ ! -f "$STAGES/pod-ready.yaml" ]]; then
  dir="$(cd "$WORK" && go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  mkdir -p "$STAGES.tmp"
  cp "$dir/kustomize/stage/node/fast/node-initialize.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-ready.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-complete.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-delete.yaml" "$STAGES.tmp/"
  chmod -R u+w "$STAGES.tmp"
  rm -rf "$STAGES" && mv "$STAGES.tmp" "$STAGES"
fi

if [[ "$(dep_version "$BIN/etcd" go.etcd.io/etcd/server/v3)" != "$ETCD_VERSION" ]]; then
  echo "cluster-tools: building etcd $ETCD_VERSION (about 1 minute)"
  mkdir -p "$WORK/etcd"
  (
    cd "$WORK/etcd"
    printf 'module local/etcdw\n\ngo 1.24\n' >go.mod
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3
  )
  mv "$BIN/etcd.tmp" "$BIN/etcd"
  built+=(etcd)
fi

kube_targets=()
components=(kube-apiserver kube-controller-manager kube-scheduler)
$NODE && components+=(kubelet kube-proxy kubectl)
for c in "${components[@]}"; do
  [[ "$(dep_version "$BIN/$c" k8s.io/kubernetes)" == "$KUBE_VERSION" ]] || kube_targets+=("$c")
done
if ((${#kube_targets[@]})); then
  echo "cluster-tools: building ${kube_targets[*]} $KUBE_VERSION (about 5 minutes for the first, 1-2 for each further one)"
  mkdir -p "$WORK/kube"
  (
    cd "$WORK/kube"
    dir="$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
    staging="v0.${KUBE_VERSION#v1.}"
    {
      printf 'module local/kubew\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBE_VERSION"
      # k8s.io/kubernetes replaces each staging module with ./staging/...; a dependent module
      # must name the published version instead.
      awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print "replace " $1 " => " $1 " '"$staging"'" }' "$dir/go.mod"
    } >go.mod
    grep -c '^replace' go.mod | xargs echo "cluster-tools: staging replaces:"
    for c in "${kube_targets[@]}"; do
      go get "k8s.io/kubernetes/cmd/$c@$KUBE_VERSION"
    done
    minor="${KUBE_VERSION#v1.}"
    minor="${minor%%.*}"
    # Without these the binaries report v0.0.0-master, which chart kubeVersion checks reject.
    ldflags="-s -w"
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    done
    for c in "${kube_targets[@]}"; do
      go build -trimpath -ldflags "$ldflags" -o "$BIN/$c.tmp" "k8s.io/kubernetes/cmd/$c"
      mv "$BIN/$c.tmp" "$BIN/$c"
    done
  )
  built+=("${kube_targets[@]}")
fi

echo "cluster-tools: etcd $(dep_version "$BIN/etcd" go.etcd.io/etcd/server/v3)," \
  "kube-apiserver $(dep_version "$BIN/kube-apiserver" k8s.io/kubernetes)," \
  "kube-controller-manager $(dep_version "$BIN/kube-controller-manager" k8s.io/kubernetes)," \
  "kube-scheduler $(dep_version "$BIN/kube-scheduler" k8s.io/kubernetes)," \
  "kwok $(dep_version "$BIN/kwok" sigs.k8s.io/kwok)" \
  "$($NODE && echo "kubelet/kube-proxy/kubectl $(dep_version "$BIN/kubelet" k8s.io/kubernetes)")" \
  "(built: ${built[*]:-none}, $((SECONDS - start))s)"
