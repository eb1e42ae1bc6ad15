#!/usr/bin/env bash
# The database floor of an order, and how far the store is above it:
#   scripts/perf-floor.sh [ROUNDS]        (default 2)
# against a running hangar-dev in its default in-process mode (BASE_URL, FIELDS_URL,
# HANGAR_DB_PREFIX and DATABASE_URL as for scripts/checkout-cpu.sh; VUS, default 4, and
# SECONDS_PER_RUN, default 20). Each round runs, one after the other in the same minutes:
#
#   1. the store: ANALYZE of its databases and a warm-up of WARMUP seconds (default 5, not
#      measured: statistics and connections as at steady traffic in production), then
#      loadtest/checkout.js at VUS for SECONDS_PER_RUN; CPU per order is
#      hangar-dev's (/proc/<pid>/stat) less its development stand-ins', plus that of the
#      PostgreSQL backends of the stack's databases. The stand-ins are the in-process
#      Kafka-protocol broker, the SMTP mail sink, the human verifier and the sandbox card
#      processor (in production Kafka, an SMTP relay, Google and a processor: other
#      people's processes); their goroutines (the processor's: each call into it) carry
#      the pprof label hangar.standin (internal/standin), and their CPU is hangar-dev's
#      times their share of the samples of a CPU profile of hangar-dev over the run (the
#      first service's admin /debug/pprof/profile, the whole process in process; read by
#      cmd/standin-share). The store's side of them (kafka-go producers and consumers, the
#      SMTP client, the siteverify calls, payments' use of the processor's answers) is the
#      store's and counted; so is what the
#      stand-ins cost the runtime beyond their own goroutines (collecting their garbage,
#      scheduling) and the profiling's own small cost. The WAL written meanwhile is read
#      back (pg_waldump, so this runs as root or as postgres, on the database's host): each
#      write transaction of the stack's databases with the rows it inserted, updated and
#      deleted, by table.
#   2. the floor: those very transactions and nothing else, replayed with pgbench into
#      copies of the tables (schema perf_floor of each database: the same columns and
#      indexes, unique ones included, filled with the newest row of each table, the indexed
#      columns' values made fresh per row), each transaction pipelined in one round trip and
#      one commit, a table's rows of one kind (inserted, updated or deleted) in one
#      statement, as the store's multi-row writes are. Its CPU per order is that of pgbench's backends (pgbench's own CPU, like
#      k6's, is not counted). What the floor leaves out: reads, foreign-key checks, the
#      rows' real values (updates and deletes take the first live row of the copy).
#
# The shapes (which tables, how many rows, how many commits) come from the measured run,
# so the floor follows the store's writes as they change. The last two lines are
#   with the stand-ins: W ms per order; floor: Y ms; ratio: R
#   cpu per order: X ms; floor: Y ms; ratio: Z
# with the medians of the rounds: W is the whole hangar-dev process (stand-ins included)
# plus the backends, X the store (hangar-dev less the stand-ins) plus the backends. The machine's load average is printed beside each run:
# on a shared machine, compare only runs of the same minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${1:-2}
BASE_URL=${BASE_URL:-http://localhost:8080}
FIELDS_URL=${FIELDS_URL:-http://localhost:8081}
PREFIX=${HANGAR_DB_PREFIX:-hangar_}
PGURL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
K6=${K6:-bin/k6}
VUS=${VUS:-4}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-20}
WARMUP=${WARMUP:-5}
WALDUMP=${PG_WALDUMP:-$(ls /usr/lib/postgresql/*/bin/pg_waldump 2>/dev/null | tail -1)}
OUT=${OUT:-$(mktemp -d /tmp/perf-floor.XXXXXX)}
mkdir -p "$OUT"
[[ -x "$K6" ]] || { echo "no k6 at $K6 (make k6)" >&2; exit 1; }
[[ -x "$WALDUMP" ]] || { echo "no pg_waldump (PG_WALDUMP=...)" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "no pgbench" >&2; exit 1; }

# shellcheck source=scripts/perf-lib.sh
source scripts/perf-lib.sh
pid=$(stack_pid)
admin=$(stack_admin)
share=$(standin_tool "$OUT") || { echo "cmd/standin-share not built" >&2; exit 1; }
tck=$(getconf CLK_TCK)
dburl() { local u=${PGURL%%\?*}; echo "${u%/*}/$1"; }
waldir=$(pg "SHOW data_directory")/pg_wal
dbs=$(pg "SELECT datname FROM pg_database WHERE starts_with(datname, '${PREFIX}') ORDER BY 1")
load() { cut -d' ' -f1-3 /proc/loadavg; }

# store_run N: one k6 run; prints "orders whole store app standins", the run's CPU in ms:
# hangar-dev's and the backends', the same less the stand-ins', hangar-dev's alone, and
# each stand-in's (name=ms,...). Leaves the WAL's records in $OUT/wal.N, the databases'
# oids in $OUT/oids, hangar-dev's CPU profile in $OUT/cpu.N.pprof.
store_run() {
  local n=$1 bp lsn0 lsn1 c0 c1 p0 p1 orders prof db
  # Statistics as autovacuum keeps them in production: where it is off (this machine's
  # server, for the test suite), a plan cached while a table was small (a sequential scan
  # of accounts for a batch of welcome links) stays for good and an order costs more as
  # the tables grow. ANALYZE also makes the statements plan again, in the warm-up.
  for db in $dbs; do psql "$(dburl "$db")" -XAtq -c "ANALYZE" >/dev/null; done
  # The store at steady traffic: the connections its pools closed over the floor's run
  # (idle past db.IdleTimeout) open again, and their statements are prepared, before the
  # measured run, as they are at any steady rate (WARMUP seconds, not measured).
  if [[ "$WARMUP" -gt 0 ]]; then
    GOGC=400 GOMAXPROCS=1 "$K6" run -q -e SHAPE=smoke -e BASE_URL="$BASE_URL" -e FIELDS_URL="$FIELDS_URL" \
      --vus "$VUS" --duration "${WARMUP}s" loadtest/checkout.js >"$OUT/warmup.$n.txt" 2>&1 || true
    sleep 3 # its asynchronous steps, before the measured window opens
  fi
  bp=$(pg "SELECT pid FROM pg_stat_activity WHERE starts_with(datname, '${PREFIX}')")
  # A replication slot keeps the run's WAL from being recycled before it is read (a
  # checkpoint of a busy server may come in the middle of the run).
  pg "SELECT pg_create_physical_replication_slot('perf_floor', true)" >/dev/null
  # The run's WAL starts here: the slot's restart_lsn is the last checkpoint's redo point,
  # which may lie minutes back (earlier runs' transactions would be counted as this one's).
  lsn0=$(pg "SELECT pg_current_wal_insert_lsn()")
  # Each backend's CPU at the start, by pid: one that ends during the run (a pool's idle
  # connection closed) must not count its earlier CPU against the run.
  local -A start=()
  local b
  for b in $bp; do start[$b]=$(proc_cpu "$b"); done
  c0=$(proc_cpu "$pid")
  # The profile spans k6's start, its run and the three seconds after, to within a second.
  curl -fsS -o "$OUT/cpu.$n.pprof" "http://$admin/debug/pprof/profile?seconds=$((SECONDS_PER_RUN + 4))" &
  prof=$!
  GOGC=400 GOMAXPROCS=1 "$K6" run -q -e SHAPE=smoke -e BASE_URL="$BASE_URL" -e FIELDS_URL="$FIELDS_URL" \
    --vus "$VUS" --duration "${SECONDS_PER_RUN}s" --summary-export "$OUT/summary.$n.json" loadtest/checkout.js >"$OUT/k6.$n.txt" 2>&1 || true
  # The asynchronous steps (relays, consumers, mail) finish within a few seconds.
  sleep 3
  bp=$(printf '%s\n%s\n' "$bp" "$(pg "SELECT pid FROM pg_stat_activity WHERE starts_with(datname, '${PREFIX}')")" | sort -u)
  c1=$(proc_cpu "$pid"); p0=0; p1=0
  for b in $bp; do
    [[ -r /proc/$b/stat ]] || continue
    p1=$((p1 + $(proc_cpu "$b"))); p0=$((p0 + ${start[$b]:-0}))
  done
  lsn1=$(pg "SELECT pg_current_wal_insert_lsn()")
  pg "SELECT pg_switch_wal()" >/dev/null # the records up to lsn1 in files pg_waldump can read whole
  "$WALDUMP" -p "$waldir" -s "$lsn0" -e "$lsn1" >"$OUT/wal.$n" 2>"$OUT/waldump.$n.err" || true
  pg "SELECT pg_drop_replication_slot('perf_floor')" >/dev/null
  orders=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["metrics"]["orders"]["count"]))' "$OUT/summary.$n.json" 2>/dev/null || echo 0)
  [[ "$orders" -gt 0 ]] || { echo "no orders completed (see $OUT/k6.$n.txt)" >&2; exit 1; }
  wait "$prof" || { echo "no CPU profile of hangar-dev (http://$admin/debug/pprof/profile)" >&2; exit 1; }
  "$share" "$OUT/cpu.$n.pprof" >"$OUT/standins.$n" || { echo "unreadable CPU profile $OUT/cpu.$n.pprof" >&2; exit 1; }
  python3 - "$OUT/standins.$n" "$(( (c1 - c0) * 1000 / tck ))" "$(( (p1 - p0) * 1000 / tck ))" "$orders" <<'EOF'
import sys
share = {k: int(v) for k, v in (line.split() for line in open(sys.argv[1]))}
app, db, orders = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
total = share.pop("total")
# A stand-in's CPU: hangar-dev's times the stand-in's share of the profile's samples.
parts = {k: app * v / total if total else 0.0 for k, v in share.items()}
print(orders, app + db, f"{app + db - sum(parts.values()):.1f}", app, ",".join(f"{k}={v:.1f}" for k, v in parts.items()))
EOF
}

# shapes N ORDERS: from the WAL of run N, per database, each write transaction's rows by
# table and operation, grouped into shapes; writes $OUT/floor.N/<db>/*.sql (one pgbench
# script per shape, weighted by how often it ran) and <db>/commits (write commits per order).
shapes() {
  local n=$1 orders=$2 db
  rm -rf "$OUT/floor.$n"; mkdir -p "$OUT/floor.$n"
  for db in $dbs; do
    echo "$db $(pg "SELECT oid FROM pg_database WHERE datname = '$db'")"
  done >"$OUT/oids"
  for db in $dbs; do
    psql "$(dburl "$db")" -XAtq -F' ' -c "SELECT pg_relation_filenode(c.oid), c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = 'public'" >"$OUT/rels.$db"
  done
  python3 - "$OUT" "$n" "$orders" <<'EOF'
import collections, os, re, sys
out, n, orders = sys.argv[1], sys.argv[2], int(sys.argv[3])
oids = dict(l.split()[::-1] for l in open(os.path.join(out, "oids")))  # oid -> db
rels = {db: dict(l.split() for l in open(os.path.join(out, "rels." + db))) for db in oids.values()}
ops = collections.defaultdict(collections.Counter)  # xid -> (db, table, op) counts
committed = set()
rec = re.compile(r"rmgr: (\w+)\s.*?tx:\s+(\d+),.*desc: (\S+)(.*)")
for line in open(os.path.join(out, "wal." + n), errors="replace"):
    m = rec.match(line)
    if not m:
        continue
    rmgr, xid, desc, rest = m.groups()
    if rmgr == "Transaction" and desc == "COMMIT":
        committed.add(xid)
        continue
    if rmgr not in ("Heap", "Heap2"):
        continue
    op = {"INSERT": "insert", "INSERT+INIT": "insert", "MULTI_INSERT": "insert", "MULTI_INSERT+INIT": "insert",
          "UPDATE": "update", "HOT_UPDATE": "update", "UPDATE+INIT": "update", "HOT_UPDATE+INIT": "update",
          "DELETE": "delete"}.get(desc)
    if not op:
        continue
    r = re.search(r"rel \d+/(\d+)/(\d+)", rest)
    if not r or r.group(1) not in oids:
        continue
    db = oids[r.group(1)]
    table = rels[db].get(r.group(2))
    if not table:
        continue  # a TOAST table or one not in public
    rows = 1
    if op == "insert" and desc.startswith("MULTI_INSERT"):
        k = re.search(r"(\d+) tuples", rest)
        rows = int(k.group(1)) if k else 1
    ops[xid][(db, table, op)] += rows
by_db = collections.defaultdict(collections.Counter)  # db -> shape -> count
for xid, c in ops.items():
    if xid not in committed:
        continue
    for db in {k[0] for k in c}:
        shape = tuple(sorted((t, o, k) for (d, t, o), k in c.items() if d == db))
        by_db[db][shape] += 1
for db, shapes in by_db.items():
    d = os.path.join(out, "floor." + n, db)
    os.makedirs(d)
    total = sum(shapes.values())
    with open(os.path.join(d, "commits"), "w") as f:
        f.write(f"{total / orders:.3f}\n")
    tables = sorted({t for s in shapes for t, _, _ in s})
    with open(os.path.join(d, "tables"), "w") as f:
        f.write("\n".join(tables) + "\n")
    # pgbench takes at most 128 scripts: the rarest shapes beyond them (the mail sender's
    # batches of every size) are left out of the mix; their commits still count, at the
    # kept shapes' cost per transaction.
    for i, (shape, count) in enumerate(shapes.most_common(128)):
        with open(os.path.join(d, f"shape{i}.sql"), "w") as f:
            f.write(f"-- {count} transactions of {total}: " + ", ".join(f"{o} {k} {t}" for t, o, k in shape) + "\n")
            f.write("\\startpipeline\nBEGIN;\n")
            # A table's k rows of one kind in one statement, as a multi-row write of the store
            # (an unnest, a COPY) does: rows one statement each would price a batch's
            # statements, not its rows, and lift the floor of batched work above the store's.
            for t, o, k in shape:
                f.write({"insert": f"SELECT perf_floor.insert_{t}({k});\n",
                         "update": f"UPDATE perf_floor.{t} SET ctid_key = ctid_key WHERE ctid = ANY(ARRAY(SELECT ctid FROM perf_floor.{t} LIMIT {k}));\n",
                         "delete": f"DELETE FROM perf_floor.{t} WHERE ctid = ANY(ARRAY(SELECT ctid FROM perf_floor.{t} LIMIT {k}));\n"}[o])
            f.write("COMMIT;\n\\endpipeline\n")
        with open(os.path.join(d, "weights"), "a") as f:
            f.write(f"shape{i}.sql {count}\n")
EOF
}

# prepare_floor DB TABLES...: schema perf_floor in DB with a copy of each table (columns,
# defaults, indexes) holding the table's newest row, and perf_floor.insert_<table>() that
# inserts a copy of it with fresh values in every indexed column.
prepare_floor() {
  local db=$1; shift
  psql "$(dburl "$db")" -XAtq -v ON_ERROR_STOP=1 >/dev/null <<EOF
DROP SCHEMA IF EXISTS perf_floor CASCADE;
CREATE SCHEMA perf_floor;
DO \$\$
DECLARE
  t text; idx record; col record; fresh text; sample jsonb; cols text; vals text;
BEGIN
  FOREACH t IN ARRAY string_to_array('$*', ' ') LOOP
    EXECUTE format('CREATE TABLE perf_floor.%I (LIKE public.%I INCLUDING DEFAULTS INCLUDING GENERATED)', t, t);
    -- A column of its own for the floor's updates: an update writes a new row version
    -- as the store's do, and leaves the indexes alone as a HOT update would.
    EXECUTE format('ALTER TABLE perf_floor.%I ADD COLUMN ctid_key int NOT NULL DEFAULT 0', t);
    FOR idx IN SELECT indexrelid FROM pg_index WHERE indrelid = format('public.%I', t)::regclass LOOP
      EXECUTE regexp_replace(regexp_replace(pg_get_indexdef(idx.indexrelid), ' INDEX \S+ ON public\.', ' INDEX ON perf_floor.'),
        ' ON perf_floor\.\S+', format(' ON perf_floor.%I', t));
    END LOOP;
    EXECUTE format('SELECT to_jsonb(x) FROM (SELECT * FROM public.%I ORDER BY ctid DESC LIMIT 1) x', t) INTO sample;
    IF sample IS NULL THEN
      -- The table is empty again (the outbox: its rows are deleted once published): a
      -- made-up row, 256 bytes a string.
      sample := '{}';
      FOR col IN SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS typ FROM pg_attribute a
          WHERE a.attrelid = format('public.%I', t)::regclass AND a.attnum > 0 AND NOT a.attisdropped LOOP
        sample := sample || jsonb_build_object(col.attname, CASE
          WHEN col.typ LIKE '%[]' THEN '[]'::jsonb
          WHEN col.typ = 'uuid' THEN to_jsonb(gen_random_uuid())
          WHEN col.typ IN ('text', 'citext') OR col.typ LIKE 'character%' THEN to_jsonb(repeat('x', 256))
          WHEN col.typ = 'bytea' THEN to_jsonb('\\x' || repeat('78', 256))
          WHEN col.typ IN ('jsonb', 'json') THEN jsonb_build_object('k', repeat('x', 256))
          WHEN col.typ LIKE 'timestamp%' OR col.typ = 'date' THEN to_jsonb(now())
          WHEN col.typ IN ('bigint', 'integer', 'smallint', 'numeric') THEN to_jsonb(0)
          WHEN col.typ = 'boolean' THEN to_jsonb(false)
          ELSE 'null'::jsonb END);
      END LOOP;
    END IF;
    -- The insert the floor replays: the template row (perf_floor.<table>__tpl, the sample,
    -- never changed) copied with a fresh value in every indexed column, as one plain INSERT
    -- ... SELECT: what the store's own insert costs the database, less the client's values.
    EXECUTE format('CREATE TABLE perf_floor.%I (LIKE perf_floor.%I)', t || '__tpl', t);
    EXECUTE format('INSERT INTO perf_floor.%I SELECT * FROM jsonb_populate_record(NULL::perf_floor.%I, %L::jsonb)', t || '__tpl', t,
      sample || '{"ctid_key": 0}');
    fresh := '{}';
    FOR col IN SELECT DISTINCT a.attname, format_type(a.atttypid, a.atttypmod) AS typ FROM pg_index i
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = format('public.%I', t)::regclass LOOP
      fresh := (fresh::jsonb || jsonb_build_object(col.attname, CASE
        WHEN col.typ = 'uuid' THEN 'gen_random_uuid()'
        WHEN col.typ IN ('text', 'character varying', 'citext') OR col.typ LIKE 'character varying(%' THEN 'gen_random_uuid()::text'
        WHEN col.typ = 'bytea' THEN 'gen_random_uuid()::text::bytea'
        WHEN col.typ IN ('bigint', 'integer') THEN '(random() * 2e9)::bigint'
        WHEN col.typ LIKE 'timestamp%' THEN 'clock_timestamp()'
        ELSE NULL END))::text;
    END LOOP;
    cols := ''; vals := '';
    FOR col IN SELECT a.attname FROM pg_attribute a
        WHERE a.attrelid = format('perf_floor.%I', t)::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
        ORDER BY a.attnum LOOP
      cols := cols || CASE WHEN cols = '' THEN '' ELSE ', ' END || quote_ident(col.attname);
      -- Indexed columns of a type with no fresh value keep the template's.
      vals := vals || CASE WHEN vals = '' THEN '' ELSE ', ' END || coalesce(fresh::jsonb ->> col.attname, quote_ident(col.attname));
    END LOOP;
    EXECUTE format('CREATE FUNCTION perf_floor.%I() RETURNS void LANGUAGE sql AS %L', 'insert_' || t,
      format('INSERT INTO perf_floor.%I (%s) SELECT %s FROM perf_floor.%I', t, cols, vals, t || '__tpl'));
    EXECUTE format('SELECT perf_floor.%I()', 'insert_' || t);
  END LOOP;
END
\$\$;
EOF
}

# floor_run N: replays run N's shapes in every database at once, 2 clients each, for
# SECONDS_PER_RUN; prints the floor's CPU per order in ms.
floor_run() {
  local n=$1 db dir args pids=() w
  for dir in "$OUT/floor.$n"/*/; do
    db=$(basename "$dir")
    prepare_floor "$db" $(cat "$dir/tables") || { echo "perf_floor of $db not prepared" >&2; return 1; }
    # Each insert as its own statement in the scripts (prepared once per client, as the
    # store's are): a SQL function's body would be planned again at every call.
    psql "$(dburl "$db")" -XAtq -F $'\t' -c "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'perf_floor' AND p.proname LIKE 'insert\\_%'" >"$dir/inserts"
    python3 - "$dir" <<'EOF'
import glob, os, re, sys
d = sys.argv[1]
inserts = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(d, "inserts")) if l.strip())
for f in glob.glob(os.path.join(d, "shape*.sql")):
    text = open(f).read()
    for name, body in inserts.items():
        text = text.replace(f"SELECT perf_floor.{name}(1);", body + ";")
        # k rows: the template copied k times, each with its own fresh indexed values.
        text = re.sub(rf"SELECT perf_floor\.{name}\((\d+)\);", lambda m: f"{body} CROSS JOIN generate_series(1, {m.group(1)});", text)
    open(f, "w").write(text)
EOF
    args=()
    while read -r f w; do args+=(-f "$dir/$f@$w"); done <"$dir/weights"
    PGAPPNAME="perf_floor_$db" pgbench -n -M prepared -c 2 -j 1 -T "$SECONDS_PER_RUN" "${args[@]}" "$(dburl "$db")" >"$dir/pgbench.txt" 2>&1 &
    pids+=($!)
  done
  # The backends' CPU, sampled until pgbench ends (a backend's /proc entry goes with it).
  declare -A ticks=()
  local app p
  while kill -0 "${pids[@]}" 2>/dev/null; do
    while read -r app p; do
      [[ -n "$p" ]] && ticks["$app $p"]=$(proc_cpu "$p")
    done < <(pg "SELECT application_name, pid FROM pg_stat_activity WHERE application_name LIKE 'perf_floor_%'")
    sleep 0.2
  done
  wait "${pids[@]}" || true
  for w in "${!ticks[@]}"; do echo "${w% *} ${ticks[$w]}"; done >"$OUT/floor.$n/ticks"
  python3 - "$OUT/floor.$n" "$tck" <<'EOF'
import collections, os, re, sys
d, tck = sys.argv[1], int(sys.argv[2])
cpu = collections.Counter()
for line in open(os.path.join(d, "ticks")):
    app, t = line.split()
    cpu[app.removeprefix("perf_floor_")] += int(t)
per_order = 0.0
for db in sorted(x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x))):
    txt = open(os.path.join(d, db, "pgbench.txt")).read()
    m = re.search(r"number of transactions actually processed: (\d+)", txt)
    commits = float(open(os.path.join(d, db, "commits")).read())
    if not m or int(m.group(1)) == 0:
        sys.exit(f"pgbench failed in {db}: {txt[-500:]}")
    # This database's CPU per transaction, times its write commits per order.
    per_order += cpu[db] / tck * 1000 / int(m.group(1)) * commits
print(f"{per_order:.2f}")
EOF
  for dir in "$OUT/floor.$n"/*/; do
    psql "$(dburl "$(basename "$dir")")" -XAtq -c "DROP SCHEMA IF EXISTS perf_floor CASCADE" >/dev/null
  done
}

trap 'pg "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"'"'perf_floor'"'"'" >/dev/null 2>&1 || true' EXIT
store=() whole=() floor=()
for round in $(seq "$ROUNDS"); do
  read -r orders cpu storecpu app standins < <(store_run "$round")
  s=$(python3 -c "print(f'{$storecpu / $orders:.2f}')")
  w=$(python3 -c "print(f'{$cpu / $orders:.2f}')")
  st=$(python3 - "$standins" "$orders" <<'EOF'
import sys
parts = {k: float(v) / int(sys.argv[2]) for k, v in (p.split("=") for p in sys.argv[1].split(","))}
print(f"{sum(parts.values()):.2f} ms: " + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()))
EOF
)
  echo "round $round store: $orders orders at $VUS VUs, cpu per order $s ms (hangar-dev $(python3 -c "print(f'{$app / $orders:.2f}')") ms less its stand-ins' $st; with them $w ms); load $(load)"
  shapes "$round" "$orders"
  for dir in "$OUT/floor.$round"/*/; do
    echo "  $(basename "$dir"): $(cat "$dir/commits") write commits per order; $(head -qn1 "$dir"/shape*.sql | head -3 | sed 's/^-- //' | paste -sd';')"
  done
  f=$(floor_run "$round")
  echo "round $round floor: cpu per order $f ms; load $(load)"
  store+=("$s") whole+=("$w") floor+=("$f")
done
python3 - "${store[*]}" "${whole[*]}" "${floor[*]}" <<'EOF'
import statistics, sys
s, w, f = (statistics.median(float(x) for x in arg.split()) for arg in sys.argv[1:4])
print(f"with the stand-ins: {w:.1f} ms per order; floor: {f:.1f} ms; ratio: {w / f:.2f}")
print(f"cpu per order: {s:.1f} ms; floor: {f:.1f} ms; ratio: {s / f:.2f}")
EOF
echo "(work dir $OUT)" >&2
