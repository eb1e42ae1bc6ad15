#!/usr/bin/env bash
# The store on one real Kubernetes node (`make test-k8s`):
#   1. tools: the pinned control plane plus kubelet, kube-proxy and kubectl
#      (scripts/cluster-tools.sh --node), helm (scripts/helm-check.sh --tools), CoreDNS and
#      Traefik from their Go modules (deploy/k8s-node/*; into ./bin, rebuilt only for another
#      version); containerd, runc, the CNI plugins, iptables, conntrack, socat and jq from
#      apt when missing;
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
#   8. monitoring and dashboards: Prometheus on the release's ServiceMonitors and rules, each
#      business dashboard query returning a series; prints `kubectl get nodes,pods,jobs -o wide`.
# Every process it started is stopped at the end (also on failure or Ctrl-C), the bridge,
# the iptables rules, the mounts, the kernel settings and the databases are restored; a
# failed run keeps its logs and prints their path.
#
# Usage: scripts/test-k8s.sh [--keep]   (--keep: leave the cluster running; Ctrl-C stops it)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
COREDNS_VERSION=v1.15.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
NODE=hangar-node
NS=hangar
POD_CIDR=10.244.0.0/24
GATEWAY=10.244.0.1
BRIDGE=hangar0
SERVICE_CIDR=10.96.0.0/16
export GOWORK=off

KEEP=false
[[ "${1:-}" == "--keep" ]] && KEEP=true

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
# (deploy/k8s-node/coredns, its own module pinning the version).
# Traefik from its module (deploy/k8s-node/traefik pins the version).
build_traefik() {
  local want
  want="$(awk '$1 == "github.com/traefik/traefik/v3" { print $2 }' "$ROOT/deploy/k8s-node/traefik/go.mod")"
  [[ "$(dep_version "$BIN/k8s-node/traefik" github.com/traefik/traefik/v3)" == "$want" ]] && return 0
  echo "test-k8s: building Traefik $want (several minutes, once)"
  (cd "$ROOT/deploy/k8s-node/traefik" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/k8s-node/traefik.tmp" github.com/traefik/traefik/v3/cmd/traefik)
  mv "$BIN/k8s-node/traefik.tmp" "$BIN/k8s-node/traefik"
}

build_coredns() {
  [[ "$(dep_version "$BIN/coredns" github.com/coredns/coredns)" == "$COREDNS_VERSION" ]] && return 0
  echo "test-k8s: building CoreDNS $COREDNS_VERSION (a few minutes, once)"
  (cd "$ROOT/deploy/k8s-node/coredns" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/coredns.tmp" .)
  mv "$BIN/coredns.tmp" "$BIN/coredns"
}

tools() {
  install_packages
  "$ROOT/scripts/cluster-tools.sh" --node
  "$ROOT/scripts/helm-check.sh" --tools
  build_coredns
  build_traefik
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/k8s-node/hangar-dev" ./cmd/hangar-dev)
  (cd "$ROOT/deploy/images" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/k8s-node/pause" ./cmd/pause)
}

images() {
  (cd "$ROOT" && HANGAR_DEV_MODE="${HANGAR_DEV_MODE:-true}" make --no-print-directory images)
  (cd "$ROOT/deploy/images" && go run ./cmd/hangar-images -out "$BIN/images" \
    -extra "pause=$BIN/k8s-node/pause,hangar-broker=$BIN/k8s-node/hangar-dev,coredns=$BIN/coredns,traefik=$BIN/k8s-node/traefik")
}

# ref NAME: the image reference `make images`/-extra wrote for NAME.
ref() { jq -r --arg n "$1" '.[] | select(.name == $n) | .ref' "$BIN/images/images.json" "$BIN/images/extra.json"; }
tag() { jq -r --arg n "$1" '.[] | select(.name == $n) | .tag' "$BIN/images/images.json" "$BIN/images/extra.json"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---------------------------------------------------------------------------- cleanup
S=""
PIDS=()
declare -A PID_OF
DBS=()
# The kubelet sets the kernel tunables every node has (vm.overcommit_memory=1, kernel.panic=10,
# kernel.panic_on_oops=1, ...; it fails to start if it cannot): this machine is shared, so
# their values are restored at the end.
SYSCTLS=(net/ipv4/ip_forward vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops
  kernel/keys/root_maxkeys kernel/keys/root_maxbytes)
declare -A SYSCTL_WAS
for k in "${SYSCTLS[@]}"; do SYSCTL_WAS[$k]="$(cat "/proc/sys/$k")"; done
NETNS_WAS="$(ls /var/run/netns 2>/dev/null | tr '\n' ' ' || true)"
failed=true
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$S" && -f "$S/kubeconfig" ]] && $failed; then
    echo "--- test-k8s: state at failure"
    "$BIN/kubectl" --kubeconfig "$S/kubeconfig" get nodes,pods,jobs,events -A -o wide 2>&1 | tail -60
  fi
  # The containers first, while containerd runs (the kubelet would restart them: it goes
  # first), then the rest in the reverse order of their start.
  if [[ -n "$S" && -S "$S/containerd.sock" ]]; then
    [[ -n "${PID_OF[kubelet]:-}" ]] && kill "${PID_OF[kubelet]}" 2>/dev/null
    for t in $(ctr -a "$S/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr -a "$S/containerd.sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1
    done
  fi
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill "${PIDS[i]}" 2>/dev/null
  done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$p" 2>/dev/null
  done
  if [[ -n "$S" ]]; then
    # containerd's shims outlive it: this node's (their -address is its socket) are stopped.
    for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $S/containerd.sock" || true); do
      kill -9 "$shim" 2>/dev/null
    done
    "$BIN/kube-proxy" --cleanup >/dev/null 2>&1
    # The kubelet's own chains (KUBE-FIREWALL, KUBE-KUBELET-CANARY, ...) outlive it.
    local ipt t c
    for ipt in iptables ip6tables; do
      for t in filter nat mangle; do
        $ipt -t $t -S 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j KUBE-' |
          sed 's/^-A/-D/' | while read -r r; do eval "$ipt -t $t $r"; done
        for c in $($ipt -t $t -S 2>/dev/null | awk '/^-N KUBE-/{print $2}'); do $ipt -t $t -F "$c"; done
        for c in $($ipt -t $t -S 2>/dev/null | awk '/^-N KUBE-/{print $2}'); do $ipt -t $t -X "$c"; done
      done
    done
    for c in $(iptables -t nat -S | awk '/^-N CNI-/{print $2}'); do
      iptables -t nat -F "$c" 2>/dev/null
    done
    iptables -t nat -S POSTROUTING | grep -- '-j CNI-' | sed 's/^-A/-D/' | while read -r r; do eval "iptables -t nat $r"; done
    for c in $(iptables -t nat -S | awk '/^-N CNI-/{print $2}'); do iptables -t nat -X "$c" 2>/dev/null; done
    ip link del "$BRIDGE" 2>/dev/null
    ip route del unreachable "$SERVICE_CIDR" 2>/dev/null
    for v in $(ip -o link show type veth | awk -F'[ @:]+' '/master '"$BRIDGE"'/{print $2}'); do ip link del "$v" 2>/dev/null; done
    # The kubelet links every container's log into /var/log/containers (a fixed path).
    find /var/log/containers -maxdepth 1 -lname "$S/*" -delete 2>/dev/null
    grep " $S/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
    # The pods' network namespaces (containerd names them cni-<uuid>) made during this run.
    for n in $(ls /var/run/netns 2>/dev/null); do
      [[ " $NETNS_WAS " == *" $n "* ]] || { umount "/var/run/netns/$n" 2>/dev/null; rm -f "/var/run/netns/$n"; }
    done
  fi
  for k in "${SYSCTLS[@]}"; do echo "${SYSCTL_WAS[$k]}" >"/proc/sys/$k"; done
  for db in "${DBS[@]}"; do psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1; done
  if [[ -n "$S" ]]; then
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

# run NAME CMD...: a background process of this test, logging to $S/logs/NAME.log.
run() {
  local name=$1
  shift
  "$@" >"$S/logs/$name.log" 2>&1 &
  PIDS+=($!)
  PID_OF[$name]=$!
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
  S="$(mktemp -d /tmp/hangar-k8s.XXXXXX)"
  mkdir -p "$S/logs" "$S/cni"
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
  for s in catalog identity checkout payments allocation notifications; do
    PGOPTIONS=--client-min-messages=warning psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS hangar_k8s_$s WITH (FORCE)" >/dev/null
    psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE hangar_k8s_$s" >/dev/null
    DBS+=("hangar_k8s_$s")
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
  PIDS+=($!)
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

# ---------------------------------------------------------------------------- monitoring
# Debian's Prometheus on the host, configured as the Prometheus operator would be from the
# release's own ServiceMonitors (their selector, port, path, interval and honorLabels;
# job = the Service) and loading its PrometheusRules (deploy/helm/check/cmd/promrules).
# Debian builds Prometheus without Kubernetes service discovery ("field
# kubernetes_sd_configs not found in type config.ScrapeConfig"), so the test does the
# discovery: the Endpoints of the Services each ServiceMonitor selects, on its port, go to
# a file_sd file per ServiceMonitor.
monitoring() {
  "$ROOT/scripts/ensure-prometheus.sh" >/dev/null
  (cd "$ROOT/deploy/helm/check" && go build -o "$S/promrules" ./cmd/promrules)
  KUBECONFIG="$S/kubeconfig" "$BIN/helm" get manifest hangar -n "$NS" | "$S/promrules" -out "$S/rules" >/dev/null
  PROM_ADDR="127.0.0.1:$(free_port)"
  kc -n "$NS" get servicemonitors -o json >"$S/servicemonitors.json"
  kc -n "$NS" get services -o json >"$S/services.json"
  kc -n "$NS" get endpoints -o json >"$S/endpoints.json"
  mkdir -p "$S/sd"
  local i n
  n="$(jq '.items | length' "$S/servicemonitors.json")"
  for ((i = 0; i < n; i++)); do
    jq --argjson i "$i" --slurpfile svcs "$S/services.json" --slurpfile eps "$S/endpoints.json" '
      .items[$i] as $sm | $sm.spec.endpoints[0].port as $port |
      [$svcs[0].items[] | select(.metadata.labels as $l | all($sm.spec.selector.matchLabels | to_entries[]; $l[.key] == .value))
        | .metadata.name as $svc | .metadata.namespace as $ns
        | $eps[0].items[] | select(.metadata.name == $svc) | .subsets[]?
        | (.ports[] | select(.name == $port) | .port) as $p
        | .addresses[] | {targets: ["\(.ip):\($p)"], labels: {namespace: $ns, service: $svc, job: $svc, pod: (.targetRef.name // "")}}]' \
      "$S/servicemonitors.json" >"$S/sd/$i.json"
  done
  jq --arg rules "$S/rules/*.yaml" --arg sd "$S/sd" '{
    global: {evaluation_interval: "2s"},
    rule_files: [$rules],
    scrape_configs: [.items | to_entries[] | .key as $i | .value as $sm | $sm.spec.endpoints[0] as $e | {
      job_name: "serviceMonitor/\($sm.metadata.namespace)/\($sm.metadata.name)/0",
      honor_labels: ($e.honorLabels // false),
      scrape_interval: $e.interval, scrape_timeout: $e.scrapeTimeout,
      metrics_path: ($e.path // "/metrics"), scheme: ($e.scheme // "http"),
      file_sd_configs: [{files: ["\($sd)/\($i).json"]}]
    }]}' "$S/servicemonitors.json" >"$S/prometheus.yml"
  promtool check config "$S/prometheus.yml" >/dev/null
  run prometheus prometheus --config.file="$S/prometheus.yml" --storage.tsdb.path="$S/prometheus" \
    --web.listen-address="$PROM_ADDR" --log.level=warn
  local want
  want="$(kc -n "$NS" get endpoints -o json | jq '[.items[].subsets[]? | .addresses[]? as $a | .ports[] | select(.name == "admin")] | length')"
  up() { [[ "$(curl -s "http://$PROM_ADDR/api/v1/query" --data-urlencode "query=count(up{namespace=\"$NS\"} == 1)" | jq -r '.data.result[0].value[1] // 0')" == "$want" ]]; }
  wait_for "Prometheus: $want admin endpoints up" 120 up
  echo "test-k8s: Prometheus at $PROM_ADDR scrapes $want pods' admin ports, $(cat "$S"/rules/*.yaml | grep -c '^- name: ') rule groups"
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
phase dashboards dashboards
kc get nodes,pods,jobs -A -o wide
failed=false
echo "test-k8s: phases (s):" "$(for p in tools images control-plane node databases addons install asserts browser monitoring dashboards; do printf '%s=%s ' "$p" "${phase_s[$p]}"; done)"
echo "test-k8s: passed in $((SECONDS - start))s"
if $KEEP; then
  echo "test-k8s: cluster kept: KUBECONFIG=$S/kubeconfig (Ctrl-C stops it)"
  sleep infinity
fi
