#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers for dev and tests, in this order:
#   1. DATABASE_URL / HANGAR_TEST_DATABASE_URL point elsewhere: trust them, do nothing;
#   2. the local server on 127.0.0.1:5432 answers: done;
#   3. a local cluster exists but is stopped: start it;
#   4. none is installed: install Debian's postgresql with apt, start it, and let local
#      TCP connections in without a password (a development machine only).
set -euo pipefail

if [[ -n "${DATABASE_URL:-}${HANGAR_TEST_DATABASE_URL:-}" ]]; then
  exit 0
fi

up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
wait_up() {
  for _ in $(seq 1 60); do up && return 0; sleep 0.5; done
  echo "ensure-postgres: PostgreSQL did not come up on 127.0.0.1:5432" >&2
  return 1
}

if up; then exit 0; fi

sudo_() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
  echo "ensure-postgres: installing PostgreSQL from Debian's packages" >&2
  sudo_ apt-get update -qq
  sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  hba=/etc/postgresql/$ver/main/pg_hba.conf
  # Development machine: local TCP connections as any user without a password.
  sudo_ sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
fi
ver=$(ls /etc/postgresql | sort -V | tail -1)
echo "ensure-postgres: starting PostgreSQL $ver" >&2
sudo_ pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
wait_up
