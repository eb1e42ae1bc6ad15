#!/usr/bin/env bash
# Makes Debian's Prometheus (prometheus and promtool, 2.42 on Debian 12) available: installs
# the `prometheus` package with apt when promtool is missing. Used by `make test-rules` and
# scripts/test-prometheus.sh. No service is started: the tests run their own prometheus
# with their own configuration, ports and storage.
set -euo pipefail

if command -v promtool >/dev/null && command -v prometheus >/dev/null; then
  exit 0
fi
echo "ensure-prometheus: installing Debian's prometheus package (promtool + prometheus)"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
# Other jobs on the machine may hold the dpkg lock: wait for it rather than fail.
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends prometheus; then
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends prometheus
fi
# Debian's package registers a system service; where an init system started it, it would
# hold :9090. The tests do not rely on it and never use that port.
command -v promtool >/dev/null || { echo "ensure-prometheus: promtool still missing" >&2; exit 1; }
