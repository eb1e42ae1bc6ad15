#!/usr/bin/env bash
# The store on one real Kubernetes node (`make test-k8s`, part of `make test`; as root):
#   1. tools: the pinned control plane plus kubelet, kube-proxy and kubectl
#      (scripts/cluster-tools.sh --node), helm (scripts/helm-check.sh --tools), CoreDNS and
#      Traefik from their Go modules (deploy/k8s-node/*), Prometheus with Kubernetes
#      discovery and k6, all from the machine's tool cache (scripts/tool-cache.sh: built once
#      per machine and version, linked into ./bin); containerd, runc, the CNI plugins,
#      iptables, conntrack, socat and jq from apt when missing;
#   2. images: `make images` (every deployable, OCI archives cached by digest) and the node's
#      own (pause, the Kafka-protocol broker, CoreDNS, Traefik), imported into containerd;
#   3. a node: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd
#      (runc, bridge CNI on hangar0 10.244.0.0/24), kubelet and kube-proxy (iptables), all
#      with their state in one temporary directory;
#   4. the cluster's add-ons as pods: CoreDNS (kube-dns 10.96.0.10), the broker and the
#      Ingress controller (Traefik, NodePort 30080 on the node's address);
#   5. `helm install --wait --wait-for-jobs` of the chart with the production values plus
#      deploy/helm/k8s-values.yaml (each value the machine forces, with its reason), the
#      host's PostgreSQL as the external database (one database per service);
#   6. asserts: the node's runtime is containerd, every migrate and topics Job completed
#      (Helm deletes a hook Job once it succeeds: their completions are watched), every
#      Deployment Available, every pod Ready, /readyz of each Service (through the API
#      server's service proxy), the README's curl purchase through the Ingress controller
#      returning an invoice, the receipt e-mail sent, the store's page through it;
#   7. browser: the Playwright purchase (web/e2e/k8s) in Chromium through the Ingress, the
#      store served as https by a TLS terminator standing for the cloud load balancer;
#   8. monitoring: Prometheus discovering the pods through the API server from the
#      release's ServiceMonitors, with its rules;
#   9. faults (K8S_FAULTS=0 skips 9-11): k6 buying through the Ingress while one pod of
#      each component is deleted in turn, then checkout is upgraded to a rebuilt image and
#      rolled back: no failed request; each event's p99 and replacement time printed;
#  10. reconcile: orders, charges, processor captures, receipt e-mails one to one;
#  11. followed: Prometheus scrapes exactly the pods now behind the Services;
#  12. dashboards: each business dashboard query returns a series; prints
#      `kubectl get nodes,pods,jobs -o wide`, the k6 summary and the events' table.
# Every process it started is stopped at the end (also on failure or Ctrl-C), the bridge,
# the iptables rules, the mounts, the kernel settings and the databases are restored; a
# failed run keeps its logs and prints their path. A run killed before it could clean up
# (SIGKILL) is cleaned up by the next one.
#
# Usage: scripts/test-k8s.sh [--keep | --tools]
#   --keep   leave the cluster running (Ctrl-C stops it)
#   --tools  only build (into the machine's tool cache) and link the tools, e.g. to warm the
#            cache before a CI run: the first build takes an hour or more under load
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
# shellcheck source=scripts/tool-cache.sh
source "$ROOT/scripts/tool-cache.sh"
PROMETHEUS_VERSION=v0.316.0 # Prometheus 3.16.0 (its module's versions are v0.<major><minor>)
PROMETHEUS_OPERATOR_VERSION=v0.85.0
NODE=hangar-node
NS=hangar
POD_CIDR=10.244.0.0/24
GATEWAY=10.244.0.1
BRIDGE=hangar0
SERVICE_CIDR=10.96.0.0/16
export GOWORK=off

KEEP=false
TOOLS_ONLY=false
[[ "${1:-}" == "--keep" ]] && KEEP=true
[[ "${1:-}" == "--tools" ]] && TOOLS_ONLY=true

start=$SECONDS
declare -A phase_s
phase() {
  local name=$1
  shift
  local t=$SECONDS
  echo "==> test-k8s: $name"
  "$@"
  phase_s[$name]=$((SECONDS - t))
  echo "==> test-k8s: $name done in ${phase_s[$name]}s"
}
fail() {
  echo "test-k8s: FAIL: $*" >&2
  exit 1
}

[[ $EUID -eq 0 ]] || fail "a node needs root (containerd, mounts, iptables)"
HOST_IP="$(ip -4 route get 1.1.1.1 | awk '{for (i = 1; i < NF; i++) if ($i == "src") print $(i + 1)}')"
[[ -n "$HOST_IP" ]] || fail "no host address with a default route"

dep_version() {
  [[ -x "$1" ]] || return 0
  go version -m "$1" 2>/dev/null | awk -v m="$2" '($1 == "mod" || $1 == "dep") && $2 == m { print $3; exit }'
}

# ---------------------------------------------------------------------------- tools
install_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v conntrack >/dev/null || missing+=(conntrack)
  command -v socat >/dev/null || missing+=(socat)
  command -v jq >/dev/null || missing+=(jq)
  if ((${#missing[@]})); then
    echo "test-k8s: apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >/dev/null ||
      { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  fi
}

# CoreDNS from its module, with only the plugins a cluster's DNS uses
# (deploy/k8s-node/coredns, its own module pinning the version), and Traefik from its
# module (deploy/k8s-node/traefik pins the version): each kept in the machine's tool cache
# (scripts/tool-cache.sh) under its version and a hash of the module's files.
build_local_module() {
  local out=$1 name=$2 dir=$3 pkg=$4
  echo "test-k8s: building $name into $TOOL_CACHE (CoreDNS ~10 min, Traefik ~60 min on the loaded 2-core machine; once per machine)"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/$name" "$pkg")
}

# Prometheus from its module with only the service discoveries this test uses (file, static,
# http and kubernetes: the `remove_all_sd,enable_kubernetes_sd` build tags, Prometheus 3.10+):
# Debian's 2.42 has no Kubernetes discovery ("field kubernetes_sd_configs not found in type
# config.ScrapeConfig"). promtool stays Debian's (make test-rules).
build_prometheus() {
  local v="${PROMETHEUS_VERSION#v0.}"
  echo "test-k8s: building Prometheus $PROMETHEUS_VERSION (kubernetes_sd only) into $TOOL_CACHE (once per machine)"
  go_install "$1" "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_VERSION" \
    -tags remove_all_sd,enable_kubernetes_sd \
    -ldflags "-s -w -X github.com/prometheus/common/version.Version=3.${v#3}"
}

# required GO.MOD MODULE: the version GO.MOD requires of MODULE.
required() { awk -v m="$2" '{ for (i = 1; i < NF; i++) if ($i == m) { print $(i + 1); exit } }' "$1"; }

tools() {
  install_packages
  "$ROOT/scripts/cluster-tools.sh" --node
  "$ROOT/scripts/helm-check.sh" --tools
  local d="$ROOT/deploy/k8s-node"
  cached_tool coredns "$(required "$d/coredns/go.mod" github.com/coredns/coredns)-$(tree_hash "$d/coredns")" \
    build_local_module coredns "$d/coredns" .
  cached_tool traefik "$(required "$d/traefik/go.mod" github.com/traefik/traefik/v3)-$(tree_hash "$d/traefik")" \
    build_local_module traefik "$d/traefik" github.com/traefik/traefik/v3/cmd/traefik
  cached_tool prometheus "$PROMETHEUS_VERSION-k8s-sd" build_prometheus
  (cd "$ROOT" && make --no-print-directory "$BIN/k6")
  mkdir -p "$BIN/k8s-node"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/k8s-node/hangar-dev" ./cmd/hangar-dev)
  (cd "$ROOT" && go build -o "$BIN/k8s-node/hangar-chaos" ./cmd/hangar-chaos)
  (cd "$ROOT/deploy/images" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/k8s-node/pause" ./cmd/pause)
}

images() {
  (cd "$ROOT" && HANGAR_DEV_MODE="${HANGAR_DEV_MODE:-true}" make --no-print-directory images)
  (cd "$ROOT/deploy/images" && go run ./cmd/hangar-images -out "$BIN/images" \
    -extra "pause=$BIN/k8s-node/pause,hangar-broker=$BIN/k8s-node/hangar-dev,coredns=$BIN/coredns,traefik=$BIN/traefik")
}

# ref NAME: the image reference `make images`/-extra wrote for NAME.
ref() { jq -r --arg n "$1" '.[] | select(.name == $n) | .ref' "$BIN/images/images.json" "$BIN/images/extra.json"; }
tag() { jq -r --arg n "$1" '.[] | select(.name == $n) | .tag' "$BIN/images/images.json" "$BIN/images/extra.json"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---------------------------------------------------------------------------- cleanup
# A run's state lives in one directory, $S (/tmp/hangar-k8s.XXXXXX): the node's state, the
# logs, and what teardown needs to undo the run even when the script itself was killed
# (SIGKILL, a CI timeout, a reboot of the shell): `owner` (this script's pid and start
# time), `pids` (every process it started, by name, pid and start time), `sysctls` (the
# kernel settings before the kubelet changed them) and `netns` (the network namespaces that
# existed before). A new run waits while another one is live (the bridge, the NodePort and
# the databases are the machine's: one node at a time), then tears down every earlier run
# whose owner is gone and that was not torn down (`torn-down`).
STATE_PREFIX=/tmp/hangar-k8s.
S=""
PIDS=()
declare -A PID_OF
SERVICES_DB=(catalog identity checkout payments allocation notifications)
# The kubelet sets the kernel tunables every node has (vm.overcommit_memory=1, kernel.panic=10,
# kernel.panic_on_oops=1, ...; it fails to start if it cannot): this machine is shared, so
# their values are restored at the end.
SYSCTLS=(net/ipv4/ip_forward vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops
  kernel/keys/root_maxkeys kernel/keys/root_maxbytes)
failed=true

# start_time PID: the process's start time in clock ticks since boot (with the pid, it names
# one process: a pid alone may have been reused since).
start_time() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $20}'; }

# alive NAME PID START: whether the process a run recorded as "NAME PID START" is still
# running (and still that process).
alive() {
  local pid=$2 st=$3
  [[ -n "$pid" && -n "$st" && "$(start_time "$pid")" == "$st" ]]
}

# teardown DIR: stops what the run in DIR started and undoes its changes to the machine:
# the containers (the kubelet first, else it restarts them; containerd is started again on
# the run's own state when it is no longer running, to stop them), the processes in the
# reverse order of their start, containerd's shims, kube-proxy's and the kubelet's and the
# CNI plugins' iptables rules, the pods' veths and network namespaces, the bridge, the
# mounts, the kernel settings and the test's databases. Safe to run twice.
teardown() {
  # Best effort, every step: a step that finds nothing to undo must not stop the others.
  local -
  set +e +o pipefail
  local s=$1 name pid st lines=() i sock="$1/containerd.sock" helper=""
  [[ -f "$s/pids" ]] && mapfile -t lines <"$s/pids"
  for i in "${lines[@]}"; do
    read -r name pid st <<<"$i"
    [[ "$name" == kubelet ]] && alive "$name" "$pid" "$st" && kill "$pid" 2>/dev/null
  done
  if [[ -f "$s/containerd.toml" ]]; then
    if ! timeout 5 ctr -a "$sock" version >/dev/null 2>&1; then
      containerd --config "$s/containerd.toml" >>"$s/logs/containerd-teardown.log" 2>&1 &
      helper=$!
      for _ in $(seq 100); do timeout 5 ctr -a "$sock" version >/dev/null 2>&1 && break; sleep 0.2; done
    fi
    for t in $(timeout 10 ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      timeout 10 ctr -a "$sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
    done
  fi
  for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
    read -r name pid st <<<"${lines[i]}"
    alive "$name" "$pid" "$st" && kill "$pid" 2>/dev/null
  done
  [[ -n "$helper" ]] && kill "$helper" 2>/dev/null
  for i in "${lines[@]}" "helper ${helper:-} $( [[ -n "$helper" ]] && start_time "$helper")"; do
    read -r name pid st <<<"$i"
    for _ in $(seq 50); do alive "$name" "$pid" "$st" || break; sleep 0.2; done
    alive "$name" "$pid" "$st" && kill -9 "$pid" 2>/dev/null
  done
  # containerd's shims outlive it: this node's (their -address is its socket) are stopped.
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $sock" || true); do
    kill -9 "$shim" 2>/dev/null
  done
  [[ -x "$BIN/kube-proxy" ]] && "$BIN/kube-proxy" --cleanup >/dev/null 2>&1
  # The kubelet's own chains (KUBE-FIREWALL, KUBE-KUBELET-CANARY, ...) outlive it.
  local ipt t c r
  for ipt in iptables ip6tables; do
    for t in filter nat mangle; do
      $ipt -t $t -S 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j KUBE-' |
        sed 's/^-A/-D/' | while read -r r; do eval "$ipt -t $t $r"; done
      for c in $($ipt -t $t -S 2>/dev/null | awk '/^-N KUBE-/{print $2}'); do $ipt -t $t -F "$c"; done
      for c in $($ipt -t $t -S 2>/dev/null | awk '/^-N KUBE-/{print $2}'); do $ipt -t $t -X "$c"; done
    done
  done
  # The bridge plugin's masquerade: a CNI-<hash> chain per pod, jumped to from POSTROUTING
  # by a rule commented with this node's network name ("hangar"), left behind when the
  # pods were not torn down through CNI. Other CNI users' chains on the machine stay.
  for c in $(iptables -t nat -S POSTROUTING | grep -F 'name: \"hangar\"' | grep -oE -- '-j CNI-[0-9a-f]+' | awk '{print $2}' | sort -u); do
    iptables -t nat -S POSTROUTING | grep -F -- "-j $c" | sed 's/^-A/-D/' | while read -r r; do eval "iptables -t nat $r"; done
    iptables -t nat -F "$c"
    iptables -t nat -X "$c"
  done
  for v in $(ip -o link show type veth | awk -F'[ @:]+' '/master '"$BRIDGE"'/{print $2}'); do ip link del "$v" 2>/dev/null; done
  ip link del "$BRIDGE" 2>/dev/null
  ip route del unreachable "$SERVICE_CIDR" 2>/dev/null
  # The kubelet links every container's log into /var/log/containers (a fixed path).
  find /var/log/containers -maxdepth 1 -lname "$s/*" -delete 2>/dev/null
  grep " $s/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  # The pods' network namespaces (containerd names them cni-<uuid>) made during the run.
  if [[ -f "$s/netns" ]]; then
    for n in $(ls /var/run/netns 2>/dev/null); do
      grep -qx "$n" "$s/netns" || { umount "/var/run/netns/$n" 2>/dev/null; rm -f "/var/run/netns/$n"; }
    done
  fi
  local k v
  if [[ -f "$s/sysctls" ]]; then
    while read -r k v; do echo "$v" >"/proc/sys/$k"; done <"$s/sysctls"
  fi
  for db in "${SERVICES_DB[@]}"; do
    psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS hangar_k8s_$db WITH (FORCE)" >/dev/null 2>&1
  done
  # What a failed run keeps is its logs and the files the test wrote (configuration,
  # summaries): the node's and containerd's state (images, snapshots: hundreds of MB) go.
  rm -rf "$s/containerd" "$s/kubelet" "$s/etcd" "$s/prometheus" "$s/pod-logs" 2>/dev/null
  touch "$s/torn-down"
}

# live_run: the state directory of a run of this test that is still running, if any.
live_run() {
  local d pid st
  for d in "$STATE_PREFIX"*; do
    [[ -d "$d" && ! -f "$d/torn-down" && -f "$d/owner" ]] || continue
    read -r pid st <"$d/owner"
    alive owner "$pid" "$st" && { echo "$d (pid $pid)"; return 0; }
  done
  return 1
}

# claim: waits for a live run to end (K8S_WAIT seconds at most, default 1800: one node at a
# time, and two `make test`s on the machine queue here instead of failing), tears down
# earlier runs that were killed before their own teardown, and makes this run's state
# directory $S with its owner and what it must restore.
claim() {
  local d lock other said="" end=$((SECONDS + ${K8S_WAIT:-1800}))
  exec {lock}>/tmp/hangar-k8s.lock
  flock "$lock"
  while other="$(live_run)"; do
    exec {lock}>&-
    ((SECONDS < end)) || fail "another test-k8s is still running: $other"
    [[ "$said" == "$other" ]] || echo "test-k8s: waiting for the run in $other to end"
    said=$other
    sleep 10
    exec {lock}>/tmp/hangar-k8s.lock
    flock "$lock"
  done
  for d in "$STATE_PREFIX"*; do
    [[ -d "$d" && ! -f "$d/torn-down" ]] || continue
    echo "test-k8s: tearing down an earlier run that did not finish ($d)"
    teardown "$d"
  done
  S="$(mktemp -d "${STATE_PREFIX}XXXXXX")"
  mkdir -p "$S/logs" "$S/cni"
  echo "$$ $(start_time $$)" >"$S/owner"
  local k
  for k in "${SYSCTLS[@]}"; do echo "$k $(cat "/proc/sys/$k")"; done >"$S/sysctls"
  ls /var/run/netns 2>/dev/null >"$S/netns" || true
  exec {lock}>&-
}

cleanup() {
  local rc=$?
  set +e
  if [[ -n "$S" && -f "$S/kubeconfig" ]] && $failed; then
    echo "--- test-k8s: state at failure"
    "$BIN/kubectl" --kubeconfig "$S/kubeconfig" get nodes,pods,jobs,events -A -o wide 2>&1 | tail -60
  fi
  if [[ -n "$S" ]]; then
    teardown "$S"
    if $failed; then
      echo "test-k8s: logs kept in $S/logs" >&2
    else
      rm -rf "$S"
    fi
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# track NAME PID: a process of this test, stopped at the end (also by a later run's teardown
# when this one was killed).
track() {
  PIDS+=("$2")
  PID_OF[$1]=$2
  echo "$1 $2 $(start_time "$2")" >>"$S/pids"
}

# run NAME CMD...: a background process of this test, logging to $S/logs/NAME.log.
run() {
  local name=$1
  shift
  "$@" >"$S/logs/$name.log" 2>&1 &
  track "$name" $!
}

# wait_for DESCRIPTION SECONDS CMD...: CMD until it succeeds; the deadline ends the test.
wait_for() {
  local what=$1 secs=$2
  shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || fail "$what: not within ${secs}s"
    sleep 1
  done
}

kc() { "$BIN/kubectl" --kubeconfig "$S/kubeconfig" "$@"; }

# ---------------------------------------------------------------------------- the node
control_plane() {
  local token ktoken ptoken
  token="$(openssl rand -hex 16)"
  ktoken="$(openssl rand -hex 16)"
  ptoken="$(openssl rand -hex 16)"
  openssl genrsa -out "$S/sa.key" 2048 2>/dev/null
  # The kubelet authenticates as system:node:<node> (the Node authorizer's subject),
  # kube-proxy as system:kube-proxy (bound to system:node-proxier by the default RBAC).
  {
    echo "$token,admin,admin,system:masters"
    echo "$ktoken,system:node:$NODE,kubelet,system:nodes"
    echo "$ptoken,system:kube-proxy,kube-proxy"
  } >"$S/tokens.csv"
  # The API server's client certificate for the kubelet's API (logs, exec, port-forward).
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$S/ca.key" -out "$S/ca.crt" -days 2 -subj /CN=hangar-test-ca 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$S/kubelet-client.key" -out "$S/kubelet-client.csr" \
    -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" 2>/dev/null
  openssl x509 -req -in "$S/kubelet-client.csr" -CA "$S/ca.crt" -CAkey "$S/ca.key" -CAcreateserial \
    -out "$S/kubelet-client.crt" -days 2 2>/dev/null
  API_PORT="$(free_port)"
  local etcd_port peer_port
  etcd_port="$(free_port)"
  peer_port="$(free_port)"
  SERVER="https://$HOST_IP:$API_PORT"
  for who in admin:$token kubelet:$ktoken kube-proxy:$ptoken; do
    cat >"$S/${who%%:*}.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "$SERVER", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: "${who#*:}"}
contexts:
- name: local
  context: {cluster: local, user: u}
current-context: local
EOF
  done
  cp "$S/admin.kubeconfig" "$S/kubeconfig"

  local etcd_url="http://127.0.0.1:$etcd_port"
  run etcd "$BIN/etcd" --name=hangar --data-dir="$S/etcd" \
    --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
    --initial-cluster="hangar=http://127.0.0.1:$peer_port" --log-level=warn --unsafe-no-fsync
  wait_for "etcd" 60 curl -sf "$etcd_url/health"
  # The API server listens on the host's address: pods reach it through the kubernetes
  # Service (10.96.0.1), whose endpoint is the advertised address.
  run kube-apiserver "$BIN/kube-apiserver" --etcd-servers="$etcd_url" \
    --bind-address=0.0.0.0 --advertise-address="$HOST_IP" --secure-port="$API_PORT" \
    --cert-dir="$S/certs" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$S/sa.key" --service-account-signing-key-file="$S/sa.key" \
    --token-auth-file="$S/tokens.csv" --authorization-mode=Node,RBAC \
    --kubelet-client-certificate="$S/kubelet-client.crt" --kubelet-client-key="$S/kubelet-client.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --enable-priority-and-fairness=false \
    --kubelet-preferred-address-types=InternalIP
  wait_for "kube-apiserver /readyz" 120 curl -skf -H "Authorization: Bearer $token" "$SERVER/readyz"
  run kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$S/kubeconfig" \
    --authentication-kubeconfig="$S/kubeconfig" --authorization-kubeconfig="$S/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$(free_port)" --cert-dir="$S/cm-certs" \
    --leader-elect=false --service-account-private-key-file="$S/sa.key" \
    --root-ca-file="$S/certs/apiserver.crt" --use-service-account-credentials=true
  run kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$S/kubeconfig" \
    --authentication-kubeconfig="$S/kubeconfig" --authorization-kubeconfig="$S/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$(free_port)" --cert-dir="$S/sched-certs" --leader-elect=false
}

node() {
  echo 1 >/proc/sys/net/ipv4/ip_forward
  # The bridge exists before the first pod, so the host's PostgreSQL forwarder can listen on
  # its gateway address (the CNI bridge plugin adopts it).
  ip link add "$BRIDGE" type bridge
  ip addr add "$GATEWAY/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # A Service address kube-proxy has not programmed yet must fail, not leave by the default
  # route: this machine's network answers any outbound connection (HTTP 404), and a gRPC
  # client connected there stays connected to the wrong server.
  ip route add unreachable "$SERVICE_CIDR"
  cat >"$S/cni/10-hangar.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "hangar",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$S/cni-ipam", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$GATEWAY"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
EOF
  # restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, so the runtime must not lower
  # a container's oom_score_adj below its own.
  cat >"$S/containerd.toml" <<EOF
version = 2
root = "$S/containerd/root"
state = "$S/containerd/state"
[grpc]
  address = "$S/containerd.sock"
[ttrpc]
  address = "$S/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$S/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$(ref pause)"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  restrict_oom_score_adj = true
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$S/cni"
EOF
  run containerd containerd --config "$S/containerd.toml"
  wait_for "containerd" 60 ctr -a "$S/containerd.sock" version
  local a
  for a in "$BIN"/images/*.oci.tar; do
    ctr -a "$S/containerd.sock" -n k8s.io images import "$a" >/dev/null
  done

  # The machine's limits (toolchain.md): cgroup v1 and no CAP_SYS_RESOURCE, so no QoS cgroup
  # tree and no node-allocatable enforcement, no kernel-defaults check, swap tolerated.
  cat >"$S/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
protectKernelDefaults: false
containerRuntimeEndpoint: unix://$S/containerd.sock
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $S/ca.crt}
authorization: {mode: Webhook}
address: $HOST_IP
port: $(free_port)
readOnlyPort: 0
healthzPort: $(free_port)
clusterDNS: [10.96.0.10]
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
serializeImagePulls: false
evictionHard: {"memory.available": "100Mi"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
localStorageCapacityIsolation: false
maxPods: 60
podLogsDir: $S/pod-logs
EOF
  run kubelet "$BIN/kubelet" --config="$S/kubelet.yaml" --kubeconfig="$S/kubelet.kubeconfig" \
    --root-dir="$S/kubelet" --cert-dir="$S/kubelet-pki" --hostname-override="$NODE" --node-ip="$HOST_IP" \
    --v=1
  cat >"$S/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: $S/kube-proxy.kubeconfig}
hostnameOverride: $NODE
clusterCIDR: $POD_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$(free_port)
metricsBindAddress: 127.0.0.1:$(free_port)
# No conntrack sysctls: they are the machine's, not this test's.
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}
EOF
  run kube-proxy "$BIN/kube-proxy" --config="$S/kube-proxy.yaml"
  wait_for "node $NODE Ready" 180 kc wait --for=condition=Ready "node/$NODE" --timeout=5s
}

# ---------------------------------------------------------------------------- add-ons
addons() {
  # The host's PostgreSQL listens on loopback only: a forwarder on the bridge's gateway makes
  # it the pods' external database, as a managed database outside the cluster would be.
  run pg-forward socat "TCP-LISTEN:5432,bind=$GATEWAY,reuseaddr,fork" TCP:127.0.0.1:5432
  sed -e "s|@COREDNS@|$(ref coredns)|; s|@BROKER@|$(ref hangar-broker)|; s|@TRAEFIK@|$(ref traefik)|" \
    "$ROOT/deploy/k8s-node/addons.yaml" | kc apply -f - >/dev/null
  kc -n kube-system rollout status deploy/coredns --timeout=180s
  kc -n kafka rollout status deploy/kafka --timeout=180s
  kc -n traefik rollout status deploy/traefik --timeout=180s
  kc -n mail rollout status deploy/smtp --timeout=180s
}

databases() {
  local s
  for s in "${SERVICES_DB[@]}"; do
    PGOPTIONS=--client-min-messages=warning psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS hangar_k8s_$s WITH (FORCE)" >/dev/null
    psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE hangar_k8s_$s" >/dev/null
  done
}

install_chart() {
  local crds
  crds="$(cd "$ROOT/deploy/helm/check" && go mod download -json \
    "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')/example/prometheus-operator-crd"
  kc apply --server-side -f "$crds/monitoring.coreos.com_servicemonitors.yaml" \
    -f "$crds/monitoring.coreos.com_prometheusrules.yaml" >/dev/null
  kc create namespace "$NS" >/dev/null
  kc -n "$NS" create secret generic hangar-test-checkout --from-literal=quote-key="$(openssl rand -hex 32)" \
    --from-literal=receipt-keys="k1=$(openssl rand -hex 32)" --from-literal=recaptcha-secret=unused >/dev/null
  kc -n "$NS" create secret generic hangar-test-payments --from-literal=fingerprint-key="$(openssl rand -hex 32)" \
    --from-literal=recaptcha-secret=unused >/dev/null
  kc -n "$NS" create secret generic hangar-test-identity --from-literal=device-key="$(openssl rand -hex 32)" \
    --from-literal=recaptcha-secret=unused >/dev/null
  local sets=() c
  for c in catalog identity checkout payments allocation geo notifications web; do
    sets+=(--set "services.$c.image.tag=$(tag "$c")")
  done
  sets+=(--set "kafka.topics.job.image.tag=$(tag hangar-events)")
  # Helm deletes each hook Job once it succeeds: their completions are recorded as they happen.
  kc -n "$NS" get jobs --watch --output-watch-events -o jsonpath='{.object.metadata.name} {.object.status.succeeded}{"\n"}' \
    >"$S/jobs.log" 2>&1 &
  track jobs-watch $!
  KUBECONFIG="$S/kubeconfig" "$BIN/helm" install hangar "$ROOT/deploy/helm/hangar" -n "$NS" \
    -f "$ROOT/deploy/helm/test-secrets-values.yaml" -f "$ROOT/deploy/helm/k8s-values.yaml" \
    "${sets[@]}" --wait --wait-for-jobs --timeout 8m
}

# ---------------------------------------------------------------------------- asserts
asserts() {
  local runtime
  runtime="$(kc get node "$NODE" -o jsonpath='{.status.nodeInfo.containerRuntimeVersion}')"
  [[ "$runtime" == containerd://* ]] || fail "node runtime $runtime, want containerd"
  echo "test-k8s: node $NODE runs $runtime, kubelet $(kc get node "$NODE" -o jsonpath='{.status.nodeInfo.kubeletVersion}')"
  local j want=(hangar-topics)
  for j in catalog identity checkout payments allocation notifications; do want+=("hangar-$j-migrate"); done
  for j in "${want[@]}"; do
    grep -qx "$j 1" "$S/jobs.log" || fail "Job $j did not complete (watched: $(sort -u "$S/jobs.log" | tr '\n' ';'))"
  done
  echo "test-k8s: Jobs completed: ${want[*]}"
  kc -n "$NS" wait --for=condition=Available deploy --all --timeout=120s
  kc -n "$NS" wait --for=condition=Ready pod -l app.kubernetes.io/instance=hangar --field-selector=status.phase!=Succeeded --timeout=120s
  local svc port
  for svc in $(kc -n "$NS" get svc -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'); do
    port=admin
    kc -n "$NS" get svc "$svc" -o jsonpath='{.spec.ports[*].name}' | grep -qw admin || port=http
    out="$(kc get --raw "/api/v1/namespaces/$NS/services/$svc:$port/proxy/readyz")" ||
      fail "GET /readyz through Service $svc ($port)"
    echo "test-k8s: $svc /readyz: $(echo "$out" | tr -d '\n' | cut -c1-80)"
  done
  purchase
}

# icurl HOST PATH CURL-ARGS...: curl http://HOST/PATH through the Ingress controller (the
# node's port 30080, where a cloud load balancer would forward).
icurl() {
  local host=$1 path=$2
  shift 2
  curl -s --connect-to "$host:80:$HOST_IP:30080" "$@" "http://$host$path"
}

# jcurl HOST PATH CURL-ARGS...: icurl carrying the store's cookies itself, the answer's body
# in $S/body. They are Secure (the store's URL is https) and this node has no TLS: curl's
# own jar drops a Secure cookie set over plain HTTP.
declare -A JAR
jcurl() {
  local host=$1 path=$2 cookie="" k name rc=0
  shift 2
  for k in "${!JAR[@]}"; do cookie+="$k=${JAR[$k]}; "; done
  icurl "$host" "$path" -D "$S/headers" -o "$S/body" ${cookie:+-H "Cookie: $cookie"} "$@" || rc=$?
  while IFS= read -r k; do
    name="${k%%=*}"
    JAR[$name]="${k#*=}"
  done < <(tr -d '\r' <"$S/headers" | sed -n 's/^[Ss]et-[Cc]ookie: *\([^;]*\).*/\1/p')
  return $rc
}

# purchase: the README's curl purchase, through the Ingress.
purchase() {
  local store=store.hangar-ci.ie fields=pay.hangar-ci.ie x n cfg q out
  jcurl $store /buy/api/me -f ||
    fail "GET /buy/api/me through the Ingress: $(icurl $store /buy/api/me -v 2>&1 | tail -20)"
  x="${JAR[XSRF-TOKEN]:-}"
  [[ -n "$x" ]] || fail "no XSRF-TOKEN cookie from /buy/api/me (cookies: ${!JAR[*]})"
  echo "test-k8s: card fields at $(icurl $store /buy/api/payments/client-token -f | jq -r .hostedFieldsUrl)"
  # The hosted fields' own origin (plain HTTP on this node) posts the card.
  jcurl $fields /api/tokenize -H 'Content-Type: application/json' -H "Origin: http://$fields" \
    -d '{"number":"4111 1111 1111 1111","cvv":"123","expirationDate":"12/2030","cardholderName":"Amelia Earhart","postalCode":"97201"}' || true
  n="$(jq -r '.nonce // empty' "$S/body" 2>/dev/null || true)"
  [[ -n "$n" ]] || fail "tokenize at the fields host answered no nonce: $(cat "$S/body")"
  cfg='{"email":"k8s-buyer@hangar-ci.ie","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],"billingInfo":{"zipcode":"97201","country":"US"}}'
  jcurl $store /buy/api/invoice/preview -f -H "X-XSRF-TOKEN: $x" -H 'Content-Type: application/json' -d "$cfg" ||
    fail "preview: $(cat "$S/body")"
  q="$(jq -r .quoteId "$S/body")"
  [[ -n "$q" && "$q" != null ]] || fail "preview answered no quote: $(cat "$S/body")"
  jcurl $store /buy/api/invoice/submit -H "X-XSRF-TOKEN: $x" -H 'Content-Type: application/json' \
    -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" \
    -d "$(echo "$cfg" | jq -c --arg q "$q" --arg n "$n" '. + {quoteId:$q, nonce:$n, cardholderName:"Amelia Earhart"}')" || true
  out="$(cat "$S/body")"
  echo "test-k8s: submit: $out"
  [[ -n "$(echo "$out" | jq -r '.invoiceId // empty')" ]] || fail "the purchase returned no invoice"
  # The receipt: notifications consumed order-completed and handed the e-mail to the relay.
  receipts() { kc get --raw "/api/v1/namespaces/mail/services/smtp:http/proxy/-/mail?to=k8s-buyer@hangar-ci.ie&brief=1" | jq -c '[.mails[] | select(.subject | startswith("Your Hangar receipt")) | {to, subject}]'; }
  receipt() { receipts | jq -e 'length > 0'; }
  wait_for "the receipt e-mail to k8s-buyer@hangar-ci.ie" 120 receipt
  echo "test-k8s: receipt e-mail: $(receipts)"
  out="$(icurl $store / -f)" || fail "GET / (the web front end)"
  [[ "$out" == *"<html"* || "$out" == *"<!doctype"* ]] || fail "GET / answered no page"
}

# browser: the Playwright purchase (web/e2e/k8s/purchase.spec.ts) in Debian's Chromium
# through the Ingress: the store's page, the card typed into the hosted fields and tokenized
# at the fields host, Pay answering the receipt. The store's URL is https: a TLS terminator
# on loopback (socat, self-signed certificate) forwards to the node's port 30080, as a cloud
# load balancer would; the fields' origin is the Ingress's plain HTTP (no ingress TLS here).
browser() {
  [[ -x /usr/bin/chromium ]] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  # shellcheck source=scripts/web-env.sh
  source "$ROOT/scripts/web-env.sh"
  [[ -x "$WEB_DIR/node_modules/.bin/playwright" ]] || web_install
  local lb
  lb="127.0.0.1:$(free_port)"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=store.hangar-ci.ie \
    -addext subjectAltName=DNS:store.hangar-ci.ie,DNS:pay.hangar-ci.ie \
    -keyout "$S/lb.key" -out "$S/lb.crt" 2>/dev/null
  cat "$S/lb.key" "$S/lb.crt" >"$S/lb.pem"
  run tls-lb socat "OPENSSL-LISTEN:${lb##*:},bind=127.0.0.1,reuseaddr,fork,cert=$S/lb.pem,verify=0" "TCP:$HOST_IP:30080"
  wait_for "the TLS terminator on $lb" 10 bash -c "exec 3<>/dev/tcp/${lb%:*}/${lb##*:}"
  (cd "$WEB_DIR" && HANGAR_K8S_INGRESS="$HOST_IP:30080" HANGAR_K8S_LB="$lb" \
    node_modules/.bin/playwright test -c e2e/k8s/playwright.config.ts) ||
    fail "the Playwright purchase through the Ingress (trace: web/test-results/e2e-k8s)"
}

# ---------------------------------------------------------------------------- faults
# Faults and a rolling upgrade under load (issue 40, item 4): k6 (loadtest/checkout.js,
# SHAPE=steady: K8S_LOAD_RATE journeys/s, each tokenize → preview → submit → receipt, a new
# buyer each) buys through the Ingress while, one at a time,
#   - one pod of each component is deleted (2 replicas each: the production value), and the
#     next event starts when its replacement is Ready and the deleted pod is gone;
#   - checkout is upgraded by `helm upgrade` to a rebuilt image (the same binaries, one more
#     label: another digest), its migrate Job running again as the pre-upgrade hook;
#   - `helm rollback` to the installed revision.
# k6's threshold is no failed request (http_req_failed rate==0) and every check true; each
# event's p99 comes from k6's per-request CSV over the event's window. Then the databases
# are reconciled (`hangar-chaos reconcile`): every order k6 was told about written once,
# each paid by one charge backed by one processor capture, one receipt e-mail per order, no
# submission left pending.
K8S_LOAD_RATE="${K8S_LOAD_RATE:-2}"
COMPONENTS=(catalog identity checkout payments allocation geo notifications web)

# event NAME START END READY: one line of $S/events.tsv (times in ms since the epoch).
event() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$S/events.tsv"; }
now_ms() { date +%s%3N; }

# ready_since_ms POD: when POD's Ready condition last turned true, in ms since the epoch.
ready_since_ms() {
  local t
  t="$(kc -n "$NS" get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].lastTransitionTime}')"
  echo $(($(date -d "$t" +%s) * 1000))
}

# delete_one COMPONENT: deletes the first pod of COMPONENT, waits for its replacement to be
# Ready and for the pod to be gone.
delete_one() {
  local c=$1 sel="app.kubernetes.io/instance=hangar,app.kubernetes.io/component=$1" old pod t0 new ready
  old="$(kc -n "$NS" get pods -l "$sel" --field-selector=status.phase=Running -o jsonpath='{.items[*].metadata.name}')"
  pod="$(tr ' ' '\n' <<<"$old" | sort | head -1)"
  [[ -n "$pod" ]] || fail "no running pod of $c to delete"
  t0="$(now_ms)"
  kc -n "$NS" delete pod "$pod" --wait=false >/dev/null
  new_ready() {
    new="$(kc -n "$NS" get pods -l "$sel" -o json | jq -r --arg old " $old " \
      '.items[] | .metadata.name as $n | select(($old | contains(" " + $n + " ")) | not)
        | select(any(.status.conditions[]?; .type == "Ready" and .status == "True")) | .metadata.name' | head -1)"
    [[ -n "$new" ]]
  }
  wait_for "a Ready replacement for $pod" 180 new_ready
  ready="$(ready_since_ms "$new")"
  kc -n "$NS" wait --for=delete "pod/$pod" --timeout=120s >/dev/null
  event "delete one $c pod" "$t0" "$(now_ms)" "$(((ready - t0) / 1000))"
  echo "test-k8s: deleted $pod; $new Ready after $(((ready - t0) / 1000)) s"
}

# roll DESCRIPTION HELM-ARGS...: a helm upgrade or rollback of checkout, --wait; READY is the
# time until every new pod is Ready (helm's --wait returns then).
roll() {
  local what=$1 t0
  shift
  t0="$(now_ms)"
  KUBECONFIG="$S/kubeconfig" "$BIN/helm" "$@" -n "$NS" --wait --timeout 5m >/dev/null
  kc -n "$NS" rollout status deploy/hangar-checkout --timeout=120s >/dev/null
  local t1
  t1="$(now_ms)"
  event "$what" "$t0" "$t1" "$(((t1 - t0) / 1000))"
  echo "test-k8s: $what: every checkout pod Ready after $(((t1 - t0) / 1000)) s ($(kc -n "$NS" get deploy hangar-checkout -o jsonpath='{.spec.template.spec.containers[0].image}'))"
}

faults() {
  # The rebuilt checkout: the same binary, one more label, so another digest and tag.
  (cd "$ROOT/deploy/images" && go run ./cmd/hangar-images -root "$ROOT" -out "$S/images-upgrade" \
    -only checkout -label "hangar.test/rebuilt=$(date +%s)") >/dev/null
  ctr -a "$S/containerd.sock" -n k8s.io images import "$S"/images-upgrade/*.oci.tar >/dev/null
  local up_tag rev
  up_tag="$(jq -r '.[0].tag' "$S/images-upgrade/images.json")"
  [[ "$up_tag" != "$(tag checkout)" ]] || fail "the rebuilt checkout image has the same tag $up_tag"
  rev="$(KUBECONFIG="$S/kubeconfig" "$BIN/helm" history hangar -n "$NS" -o json | jq '.[-1].revision')"

  : >"$S/events.tsv"
  local hosts
  hosts="$(jq -nc --arg a "$HOST_IP:30080" '{"store.hangar-ci.ie": $a, "pay.hangar-ci.ie": $a}')"
  K6_NO_USAGE_REPORT=true K6_CSV_TIME_FORMAT=unix_milli GOGC=400 GOMAXPROCS=1 \
    run k6 "$BIN/k6" run --quiet --no-color -e SHAPE=steady -e RATE="$K8S_LOAD_RATE" -e DURATION=30m \
    -e BASE_URL=http://store.hangar-ci.ie -e FIELDS_URL=http://pay.hangar-ci.ie \
    -e ORIGIN=https://store.hangar-ci.ie -e HOSTS="$hosts" -e LOG_ORDERS=1 \
    --log-output="file=$S/k6-orders.log" --summary-export="$S/k6-summary.json" --out "csv=$S/k6.csv" \
    "$ROOT/loadtest/checkout.js"
  # The baseline: the load's first 10 orders, before any fault.
  local t0
  t0="$(now_ms)"
  ten_orders() { (($(grep -c 'order subscription' "$S/k6-orders.log" 2>/dev/null) >= 10)); }
  wait_for "k6's first 10 orders through the Ingress" 120 ten_orders
  event "no fault (baseline)" "$t0" "$(now_ms)" ""

  local c
  for c in "${COMPONENTS[@]}"; do delete_one "$c"; done
  roll "helm upgrade checkout to a rebuilt image" upgrade hangar "$ROOT/deploy/helm/hangar" --reuse-values \
    --set "services.checkout.image.tag=$up_tag"
  roll "helm rollback to revision $rev" rollback hangar "$rev"

  kill -INT "${PID_OF[k6]}"
  wait "${PID_OF[k6]}" || true
  [[ -s "$S/k6-summary.json" ]] || fail "k6 wrote no summary (log: $S/logs/k6.log)"
  python3 - "$S/k6.csv" "$S/events.tsv" >"$S/events.md" <<'PY'
import csv, sys
from math import ceil
samples = []  # (ms, name, duration ms, failed)
failed_at = []
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        if r["metric_name"] == "http_req_duration":
            samples.append((int(r["timestamp"]), r["name"], float(r["metric_value"])))
        elif r["metric_name"] == "http_req_failed" and float(r["metric_value"]) > 0:
            failed_at.append(int(r["timestamp"]))
def p99(v):
    v = sorted(v)
    return v[max(0, ceil(0.99 * len(v)) - 1)] if v else float("nan")
print("| Event (one at a time, under load) | Replacement Ready (s) | Requests | Failed | p99 submit (ms) | p99 all requests (ms) |")
print("|---|---:|---:|---:|---:|---:|")
for line in open(sys.argv[2]):
    name, a, b, ready = line.rstrip("\n").split("\t")
    a, b = int(a), int(b)
    w = [s for s in samples if a <= s[0] <= b]
    fails = sum(1 for t in failed_at if a <= t <= b)
    print(f"| {name} | {ready or '–'} | {len(w)} | {fails} | {p99([s[2] for s in w if s[1] == 'submit']):.0f} | {p99([s[2] for s in w]):.0f} |")
PY
  echo "test-k8s: the load's events:"
  cat "$S/events.md"
  jq -r '"test-k8s: k6: \(.metrics.iterations.count) journeys, \(.metrics.http_reqs.count) requests, failed rate \(.metrics.http_req_failed.value), checks rate \(.metrics.checks.value), orders \(.metrics.orders.count), p99 of all requests \(.metrics.http_req_duration["p(99)"] | floor) ms"' "$S/k6-summary.json"
  jq -e '.metrics.http_req_failed.value == 0 and .metrics.checks.value == 1 and .metrics.orders.count > 0' "$S/k6-summary.json" >/dev/null ||
    fail "requests failed under the pod deletions and the roll (k6: $S/logs/k6.log, $S/events.md)"
}

# reconcile: the databases after the load, one to one (cmd/hangar-chaos reconcile): it waits
# for the store to settle (submissions, outbox, e-mails), then compares orders, charges,
# the processor's captures, subscriptions and receipt e-mails (from the mail sink pod,
# through the API server's service proxy).
reconcile() {
  local port
  port="$(free_port)"
  run kubectl-proxy "$BIN/kubectl" --kubeconfig "$S/kubeconfig" proxy --address=127.0.0.1 --port="$port"
  wait_for "kubectl proxy" 30 curl -sf "http://127.0.0.1:$port/version"
  "$BIN/k8s-node/hangar-chaos" reconcile -db "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" \
    -prefix hangar_k8s_ -orders "$S/k6-orders.log" -wait 3m \
    -mail "http://127.0.0.1:$port/api/v1/namespaces/mail/services/smtp:http/proxy/-/mail" | tee "$S/reconcile.txt" ||
    fail "the reconciliation after the load ($S/reconcile.txt)"
}

# ---------------------------------------------------------------------------- monitoring
# Prometheus on the host (built with Kubernetes service discovery: tools), configured as the
# Prometheus operator configures it from the release's own ServiceMonitors: per endpoint of
# each, a job serviceMonitor/<namespace>/<name>/<i> discovering EndpointSlices in the
# ServiceMonitor's namespaces through the API server (kubernetes_sd_configs, role
# endpointslice), keeping the Services its selector matches and the endpoint's port, with
# its path, scheme, interval, timeout and honorLabels, and the operator's target labels
# (namespace, service, pod, container, endpoint; job = the Service). It loads the release's
# PrometheusRules (deploy/helm/check/cmd/promrules). Pods that die and start during the
# faults phase are followed by the discovery, as in a cluster.
monitoring() {
  (cd "$ROOT/deploy/helm/check" && go build -o "$S/promrules" ./cmd/promrules)
  KUBECONFIG="$S/kubeconfig" "$BIN/helm" get manifest hangar -n "$NS" | "$S/promrules" -out "$S/rules" >/dev/null
  PROM_ADDR="127.0.0.1:$(free_port)"
  kc -n "$NS" get servicemonitors -o json >"$S/servicemonitors.json"
  jq --arg rules "$S/rules/*.yaml" --arg kubeconfig "$S/kubeconfig" '
    def sanitize: gsub("[^a-zA-Z0-9_]"; "_");
    {
    global: {evaluation_interval: "2s"},
    rule_files: [$rules],
    scrape_configs: [.items[] | . as $sm | $sm.spec.endpoints | to_entries[] | .key as $i | .value as $e | {
      job_name: "serviceMonitor/\($sm.metadata.namespace)/\($sm.metadata.name)/\($i)",
      honor_labels: ($e.honorLabels // false),
      scrape_interval: $e.interval, scrape_timeout: $e.scrapeTimeout,
      metrics_path: ($e.path // "/metrics"), scheme: ($e.scheme // "http"),
      kubernetes_sd_configs: [{role: "endpointslice", kubeconfig_file: $kubeconfig,
        namespaces: {names: ($sm.spec.namespaceSelector.matchNames // [$sm.metadata.namespace])}}],
      relabel_configs: (
        [$sm.spec.selector.matchLabels | to_entries[] | {action: "keep",
          source_labels: ["__meta_kubernetes_service_label_\(.key | sanitize)", "__meta_kubernetes_service_labelpresent_\(.key | sanitize)"],
          regex: "(\(.value));true"}]
        + [{action: "keep", source_labels: ["__meta_kubernetes_endpointslice_port_name"], regex: $e.port},
           {action: "drop", source_labels: ["__meta_kubernetes_pod_phase"], regex: "(Failed|Succeeded)"},
           {source_labels: ["__meta_kubernetes_namespace"], target_label: "namespace"},
           {source_labels: ["__meta_kubernetes_service_name"], target_label: "service"},
           {source_labels: ["__meta_kubernetes_pod_name"], target_label: "pod"},
           {source_labels: ["__meta_kubernetes_pod_container_name"], target_label: "container"},
           {source_labels: ["__meta_kubernetes_service_name"], target_label: "job"},
           {target_label: "endpoint", replacement: $e.port}])
    }]}' "$S/servicemonitors.json" >"$S/prometheus.yml"
  run prometheus "$BIN/prometheus" --config.file="$S/prometheus.yml" --storage.tsdb.path="$S/prometheus" \
    --web.listen-address="$PROM_ADDR" --log.level=warn
  local want
  want="$(kc -n "$NS" get endpoints -o json | jq '[.items[].subsets[]? | .addresses[]? as $a | .ports[] | select(.name == "admin")] | length')"
  up() { [[ "$(curl -s "http://$PROM_ADDR/api/v1/query" --data-urlencode "query=count(up{namespace=\"$NS\"} == 1)" | jq -r '.data.result[0].value[1] // 0')" == "$want" ]]; }
  wait_for "Prometheus: $want admin endpoints discovered and up" 120 up
  echo "test-k8s: Prometheus $("$BIN/prometheus" --version 2>/dev/null | awk 'NR == 1 {print $3}') at $PROM_ADDR discovers and scrapes $want pods' admin ports through the API server, $(cat "$S"/rules/*.yaml | grep -c '^- name: ') rule groups"
}

# monitoring_followed: after the faults, Prometheus scrapes the pods that replaced the
# deleted and rolled ones, and none of the gone ones (discovery followed the cluster).
monitoring_followed() {
  local want
  want="$(kc -n "$NS" get endpoints -o json | jq -c '[.items[].subsets[]? | .addresses[]? as $a | .ports[] | select(.name == "admin") | $a.targetRef.name] | sort')"
  scraped() { [[ "$(curl -s "http://$PROM_ADDR/api/v1/query" --data-urlencode "query=up{namespace=\"$NS\"} == 1" | jq -c '[.data.result[].metric.pod] | sort')" == "$want" ]]; }
  wait_for "Prometheus to scrape exactly the pods now behind the Services" 60 scraped
  echo "test-k8s: Prometheus follows the pods: $(jq length <<<"$want") scraped, the deleted and rolled ones gone"
}

# dashboards: each query of the business dashboard over what this run did returns a series
# (the ones about events it does not cause — declines, gift certificates, send failures,
# dead letters — are listed, not asserted), and so does the service dashboard's p99 by route.
dashboards() {
  local q skip='hangar_payment_declines_total|hangar_gift_certificates_issued_total|hangar_notifications_send_failures_total|hangar_kafka_consumer_dead_letters_total'
  local queries=()
  mapfile -t queries < <(jq -r '.. | objects | select(has("expr")) | .expr' "$ROOT/deploy/helm/hangar/dashboards/business.json")
  queries+=("$(jq -r '.. | objects | select(has("expr")) | .expr | select(startswith("histogram_quantile(0.99, sum by (route"))' "$ROOT/deploy/helm/hangar/dashboards/service.json" | head -1 | sed 's/__JOB__/hangar-checkout/')")
  series() { curl -s "http://$PROM_ADDR/api/v1/query" --data-urlencode "query=$1" | jq -e '.data.result | length > 0' >/dev/null; }
  for q in "${queries[@]}"; do
    q="${q//\$namespace/$NS}"
    q="${q//\$__rate_interval/1m}"
    if [[ "$q" =~ $skip ]]; then
      echo "test-k8s: dashboard (not asserted: no such events in this run): $q"
      continue
    fi
    wait_for "a series for the dashboard query $q" 90 series "$q"
    echo "test-k8s: dashboard series: $q"
  done
}

PHASES=(tools images control-plane node databases addons install asserts browser monitoring faults reconcile
  followed dashboards)
if $TOOLS_ONLY; then
  phase tools tools
  failed=false
  exit 0
fi
claim
phase tools tools
phase images images
phase control-plane control_plane
phase node node
phase databases databases
phase addons addons
phase install install_chart
phase asserts asserts
phase browser browser
phase monitoring monitoring
if [[ "${K8S_FAULTS:-1}" == 1 ]]; then
  phase faults faults
  phase reconcile reconcile
  phase followed monitoring_followed
fi
phase dashboards dashboards
echo "--- test-k8s: the cluster at the end"
kc get nodes,pods,jobs -A -o wide
if [[ -f "$S/k6-summary.json" ]]; then
  echo "--- test-k8s: k6 (loadtest/checkout.js through the Ingress during the faults)"
  sed -n '/checks\|THRESHOLDS\|TOTAL RESULTS/,$p' "$S/logs/k6.log"
  cat "$S/events.md"
fi
failed=false
echo "test-k8s: phases (s):" "$(for p in "${PHASES[@]}"; do [[ -n "${phase_s[$p]:-}" ]] && printf '%s=%s ' "$p" "${phase_s[$p]}"; done)"
echo "test-k8s: passed in $((SECONDS - start))s"
if $KEEP; then
  echo "test-k8s: cluster kept: KUBECONFIG=$S/kubeconfig (Ctrl-C stops it)"
  sleep infinity
fi
