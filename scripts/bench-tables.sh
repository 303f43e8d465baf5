#!/usr/bin/env bash
# Tables API benchmarks, sqlited at its defaults, server pinned to CPU 0 and the client to CPU 1:
#  1. point lookup: GET /tables/t/rows/{id} vs POST /query with the same SELECT (wrk -t1 -c64, random ids in a
#     100,000-row table), BENCH_RUNS rounds each, medians;
#  2. a 100-row page deep into a 1,000,000-row table: by keyset cursor (GET …/rows?_limit=100&_after=CURSOR) vs by
#     OFFSET through POST /query, at several depths; the median of 15 requests each (curl's total time).
# Usage: scripts/bench-tables.sh [seconds]     (seconds per wrk run, default 10)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N (default 3).
set -euo pipefail
NAME=bench-tables
TOOLS="wrk curl bc"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"

log "creating the databases (100,000 and 1,000,000 rows)"
make_point_table "$WORK/point.sqlite"
sqlite3 "$WORK/deep.sqlite" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000000)
INSERT INTO t SELECT i, 'user ' || i, abs(random()) % 1000 FROM s;
SQL

start_sqlited "$WORK/point.sqlite"
echo "| workload | requests/s | p99 ms |"
echo "|---|---:|---:|"
for script in table-row query; do
    rps=(); p99=()
    for _ in $(seq "$BENCH_RUNS"); do
        out=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/http/$script.lua" "http://127.0.0.1:$PORT")
        rps+=("$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")")
        p99+=("$(wrk_p99_ms "$out")")
    done
    label=$([[ $script == query ]] && echo "POST /query (SELECT * FROM t WHERE id = ?)" || echo "GET /tables/t/rows/{id}")
    echo "| $label | $(median "${rps[@]}") | $(median "${p99[@]}") |"
done
stop_sqlited

start_sqlited "$WORK/deep.sqlite"
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
stop_sqlited
