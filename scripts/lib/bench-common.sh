# Shared by scripts/bench-tables.sh and scripts/bench-h2.sh (sourced, not run). Before sourcing, set NAME (the
# script's name for messages) and TOOLS (the commands it needs); afterwards ROOT, WORK, BIN, log, median,
# wrk_p99_ms, make_point_table, start_sqlited and stop_sqlited are defined, and the server is stopped and WORK
# removed at exit.
#   DURATION=${1:-10} seconds per run, BENCH_RUNS (default 3), BENCH_BIN_DIR=DIR (sqlited from DIR, no build).

DURATION=${1:-10}
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [seconds]" >&2; exit 2; }
BENCH_RUNS=${BENCH_RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-$NAME.XXXXXX")
log() { echo "$NAME: $*" >&2; }
for tool in $TOOLS taskset sqlite3; do
    command -v "$tool" >/dev/null || { log "$tool is required (apt-get install $tool)"; exit 1; }
done
if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    BIN=$BENCH_BIN_DIR/sqlited
else
    (cd "$ROOT" && swift build -c release --product sqlited >&2)
    BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)/sqlited
fi

SERVER_PID=""
cleanup() { [[ -z $SERVER_PID ]] || { kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; }; rm -rf "$WORK"; }
trap cleanup EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The 99th percentile of a `wrk --latency` report, in milliseconds.
wrk_p99_ms() {
    awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$1"
}

# make_point_table DATABASE: t(id, name, email, score, created) with 100,000 rows, in WAL mode.
make_point_table() {
    sqlite3 "$1" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000, 2460000.5 + i / 86400.0 FROM s;
SQL
}

# start_sqlited DATABASE: sqlited at its defaults on CPU 0, the request log (stderr) to a file, as under systemd;
# sets PORT and SERVER_PID.
start_sqlited() {
    taskset -c 0 "$BIN" --database "$1" --host 127.0.0.1 --port 0 >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    PORT=""
    for _ in $(seq 100); do
        PORT=$(sed -n 's/^sqlited: listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
        [[ -n $PORT ]] && return 0
        sleep 0.1
    done
    log "sqlited did not start"; cat "$WORK/server.log" >&2; exit 1
}

stop_sqlited() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }
