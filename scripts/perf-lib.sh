# Shared by the measurement scripts (checkout-cpu.sh, perf-floor.sh, idle-cost.sh): the
# store's process, the CPU of processes from /proc, and the tool that tells the development
# stand-ins' CPU in a profile. Sourced; expects BASE_URL and PGURL.

# stack_pid: the pid of the process listening on BASE_URL's port (exits when none does).
stack_pid() {
  local port=${BASE_URL##*:} p
  port=${port%%/*}
  p=$(ss -Hltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  [[ -n "$p" ]] || { echo "nothing listens on $BASE_URL" >&2; exit 1; }
  echo "$p"
}

# proc_cpu PID...: the processes' user+system CPU ticks (gone processes count 0).
proc_cpu() {
  local t=0 p f
  for p in "$@"; do
    f=$(cut -d' ' -f14,15 "/proc/$p/stat" 2>/dev/null) || continue
    t=$((t + ${f% *} + ${f#* }))
  done
  echo "$t"
}

# pg SQL: one query against PGURL, unaligned, space-separated.
pg() { psql "$PGURL" -XAtq -F' ' -c "$1"; }

# stack_admin: the admin address (host:port) of the stack's first service (the edge's
# /-/prometheus/targets); in the in-process mode its /debug/pprof/profile is the whole
# hangar-dev process's.
stack_admin() {
  curl -fsS "$BASE_URL/-/prometheus/targets" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["targets"][0])'
}

# standin_tool DIR: the path of cmd/standin-share (a CPU profile's CPU in total and by
# development stand-in, internal/standin), built into DIR from this tree unless
# STANDIN_SHARE already names one.
standin_tool() {
  if [[ -n "${STANDIN_SHARE:-}" ]]; then
    echo "$STANDIN_SHARE"
    return
  fi
  go build -o "$1/standin-share" ./cmd/standin-share && echo "$1/standin-share"
}
