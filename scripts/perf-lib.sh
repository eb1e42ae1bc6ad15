# Shared by the measurement scripts (checkout-cpu.sh, perf-floor.sh, idle-cost.sh): the
# store's process and the CPU of processes from /proc. Sourced; expects BASE_URL and PGURL.

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
