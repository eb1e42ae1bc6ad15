#!/usr/bin/env bash
# Builds the pinned control-plane binaries scripts/test-cluster.sh runs, from the Go module
# proxy alone (no image registry, no GitHub downloads):
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (+ kwok's stage files)
# Each is kept in the machine's tool cache (scripts/tool-cache.sh: one entry per binary and
# version, shared by every clone) and linked into <repo>/bin, so a version bump here is the
# cache key. First build: about 13 minutes on 2 cores (37 with the node's binaries under a
# load of ~30); afterwards, in any clone, a second.
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
# shellcheck source=scripts/tool-cache.sh
source "$ROOT/scripts/tool-cache.sh"

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

start=$SECONDS
built=()

# Builds run one at a time: on a shared 2-core machine parallel link steps only thrash memory.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# mod_dir MODULE@VERSION: the module's directory in the module cache (downloaded if needed).
mod_dir() {
  (cd "$WORK" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
}

# kwok exits "no stages found" without stage files; they ship in its module and are kept
# in kwok's entry, linked as bin/kwok-stages-<version>, so the cluster test needs no module
# cache lookup.
build_kwok() {
  local out=$1 dir
  echo "cluster-tools: building kwok $KWOK_VERSION (about 2 minutes)"
  go_install "$out" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" -ldflags "-s -w"
  dir="$(mod_dir "sigs.k8s.io/kwok@$KWOK_VERSION")"
  mkdir -p "$out/stages"
  cp "$dir/kustomize/stage/node/fast/node-initialize.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-ready.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-complete.yaml" \
    "$dir/kustomize/stage/pod/fast/pod-delete.yaml" "$out/stages/"
  chmod -R u+w "$out/stages"
  built+=(kwok)
}

build_etcd() {
  local out=$1
  echo "cluster-tools: building etcd $ETCD_VERSION (about 1 minute)"
  mkdir -p "$WORK/etcd"
  (
    cd "$WORK/etcd"
    printf 'module local/etcdw\n\ngo 1.24\n' >go.mod
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
  )
  built+=(etcd)
}

# The wrapper module all Kubernetes binaries build in, made once per run when one is missing.
kube_module() {
  [[ -f "$WORK/kube/go.mod" ]] && return 0
  mkdir -p "$WORK/kube"
  local dir staging
  dir="$(mod_dir "k8s.io/kubernetes@$KUBE_VERSION")"
  staging="v0.${KUBE_VERSION#v1.}"
  {
    printf 'module local/kubew\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBE_VERSION"
    # k8s.io/kubernetes replaces each staging module with ./staging/...; a dependent module
    # must name the published version instead.
    awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print "replace " $1 " => " $1 " '"$staging"'" }' "$dir/go.mod"
  } >"$WORK/kube/go.mod"
  grep -c '^replace' "$WORK/kube/go.mod" | xargs echo "cluster-tools: staging replaces:"
}

# build_kube OUTDIR COMPONENT
build_kube() {
  local out=$1 c=$2 minor ldflags p
  echo "cluster-tools: building $c $KUBE_VERSION (about 5 minutes for the first, 1-2 for each further one)"
  kube_module
  minor="${KUBE_VERSION#v1.}"
  minor="${minor%%.*}"
  # Without these the binaries report v0.0.0-master, which chart kubeVersion checks reject.
  ldflags="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  (
    cd "$WORK/kube"
    go get "k8s.io/kubernetes/cmd/$c@$KUBE_VERSION"
    go build -trimpath -ldflags "$ldflags" -o "$out/$c" "k8s.io/kubernetes/cmd/$c"
  )
  built+=("$c")
}

if ! $NODE; then
  cached_tool kwok "$KWOK_VERSION" build_kwok
  # A directory of that name from before the tool cache is replaced by the link.
  [[ -L "$BIN/kwok-stages-$KWOK_VERSION" ]] || rm -rf "$BIN/kwok-stages-$KWOK_VERSION"
  ln -sfn "$TOOL_CACHE/kwok-$KWOK_VERSION/stages" "$BIN/kwok-stages-$KWOK_VERSION"
fi
cached_tool etcd "$ETCD_VERSION" build_etcd
components=(kube-apiserver kube-controller-manager kube-scheduler)
$NODE && components+=(kubelet kube-proxy kubectl)
for c in "${components[@]}"; do
  cached_tool "$c" "$KUBE_VERSION" build_kube "$c"
done

echo "cluster-tools: etcd $(dep_version "$BIN/etcd" go.etcd.io/etcd/server/v3)," \
  "kube-apiserver $(dep_version "$BIN/kube-apiserver" k8s.io/kubernetes)," \
  "kube-controller-manager $(dep_version "$BIN/kube-controller-manager" k8s.io/kubernetes)," \
  "kube-scheduler $(dep_version "$BIN/kube-scheduler" k8s.io/kubernetes)," \
  "$($NODE || echo "kwok $(dep_version "$BIN/kwok" sigs.k8s.io/kwok)")" \
  "$($NODE && echo "kubelet/kube-proxy/kubectl $(dep_version "$BIN/kubelet" k8s.io/kubernetes)")" \
  "(cache $TOOL_CACHE; built: ${built[*]:-none}, $((SECONDS - start))s)"
