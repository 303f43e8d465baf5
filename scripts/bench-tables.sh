#!/usr/bin/env bash
# Tables API benchmarks, sqlited at its defaults, server pinned to CPU 0 and the client to CPU 1:
#  1. point lookup: GET /tables/t/rows/{id} vs POST /query with the same SELECT (wrk -t1 -c64, random ids in a
#     100,000-row table), BENCH_RUNS rounds each, medians;
#  2. a 100-row page deep into a 1,000,000-row table: by keyset cursor (GET …/rows?_limit=100&_after=CURSOR) vs by
#     OFFSET through POST /query, at several depths; the median of 15 requests each (curl's total time).
# Usage: scripts/bench-tables.sh [seconds]     (seconds per wrk run, default 10)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N (default 3).
set -euo pipefail

DURATION=${1:-10}
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [seconds]" >&2; exit 2; }
BENCH_RUNS=${BENCH_RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-tables.XXXXXX")
log() { echo "bench-tables: $*" >&2; }
for tool in wrk curl sqlite3 taskset; do
    command -v "$tool" >/dev/null || { log "$tool is required (apt-get install wrk curl sqlite3 util-linux)"; exit 1; }
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

log "creating the databases (100,000 and 1,000,000 rows)"
sqlite3 "$WORK/point.sqlite" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000, 2460000.5 + i / 86400.0 FROM s;
SQL
sqlite3 "$WORK/deep.sqlite" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000000)
INSERT INTO t SELECT i, 'user ' || i, abs(random()) % 1000 FROM s;
SQL

start() { # DATABASE → sets PORT and SERVER_PID
    taskset -c 0 "$BIN" --database "$1" --host 127.0.0.1 --port 0 >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        PORT=$(sed -n 's/^sqlited: listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log" | head -1)
        [[ -n $PORT ]] && return 0
        sleep 0.1
    done
    log "sqlited did not start"; cat "$WORK/server.log" >&2; exit 1
}
stop() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

start "$WORK/point.sqlite"
echo "| workload | requests/s | p99 ms |"
echo "|---|---:|---:|"
for script in table-row query; do
    rps=(); p99=()
    for _ in $(seq "$BENCH_RUNS"); do
        out=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/http/$script.lua" "http://127.0.0.1:$PORT")
        rps+=("$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")")
        p99+=("$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$out")")
    done
    label=$([[ $script == query ]] && echo "POST /query (SELECT * FROM t WHERE id = ?)" || echo "GET /tables/t/rows/{id}")
    echo "| $label | $(median "${rps[@]}") | $(median "${p99[@]}") |"
done
stop

start "$WORK/deep.sqlite"
echo
echo "| depth (rows skipped) | cursor page ms | OFFSET page ms |"
echo "|---:|---:|---:|"
url="http://127.0.0.1:$PORT"
for depth in 1000 100000 500000 900000; do
    cursor=$(curl -s "$url/tables/t/rows?_limit=1&id__gte=$depth" | sed -n 's/.*"next":"\([^"]*\)".*/\1/p')
    [[ -n $cursor ]] || { log "no cursor at depth $depth"; exit 1; }
    cursor_times=(); offset_times=()
    for _ in $(seq 15); do
        cursor_times+=("$(taskset -c 1 curl -s -o /dev/null -w '%{time_total}' "$url/tables/t/rows?_limit=100&_after=$cursor")")
        offset_times+=("$(taskset -c 1 curl -s -o /dev/null -w '%{time_total}' --json "{\"sql\": \"SELECT * FROM t ORDER BY id LIMIT 100 OFFSET $depth\"}" "$url/query")")
    done
    printf '| %s | %.2f | %.2f |\n' "$depth" "$(echo "$(median "${cursor_times[@]}") * 1000" | bc -l)" "$(echo "$(median "${offset_times[@]}") * 1000" | bc -l)"
done
stop
