#!/usr/bin/env bash
# Streaming exports (issue #29), sqlited at its defaults pinned to CPU 0, the client (curl) on CPU 1: a 1,000,000-row
# table (about 200 MB of CSV) out as CSV and NDJSON through GET /tables/t/rows and POST /query, against
# `sqlite3 -csv` writing the same table to a file (the ceiling, pinned to CPU 0) and, when `datasette` is installed
# (PyPI), Datasette's CSV stream (`?_stream=on`, pinned to CPU 0). Rows/s is 1,000,000 over curl's total time, the
# median of BENCH_RUNS runs; the server's peak RSS is VmHWM of /proc/PID/status after every export.
# Then, with BENCH_RSS_ROWS=N (e.g. 11000000: a table of about 2 GB), the server's peak RSS while exporting a table
# of N such rows once as CSV (to /dev/null) through each path.
# Usage: scripts/bench-export.sh [rows]     (default 1000000)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N (default 3), BENCH_RSS_ROWS=N.
set -euo pipefail
ROWS=${1:-1000000}
[[ $ROWS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rows]" >&2; exit 2; }
NAME=bench-export
TOOLS="curl bc"
set -- 10
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"

make_table() { # DATABASE ROWS
    sqlite3 "$1" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL, note TEXT);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $2)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000, 2460000.5 + i / 86400.0,
  'a note, with a comma and "quotes", ' || hex(randomblob(40)) FROM s;
SQL
}
log "creating the table ($ROWS rows)"
make_table "$WORK/export.sqlite" "$ROWS"

rate() { printf '%.0f' "$(echo "$ROWS / $1" | bc -l)"; }
hwm_mib() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

echo "| export | rows/s | seconds | MB | server peak RSS MiB |"
echo "|---|---:|---:|---:|---:|"
times=()
for _ in $(seq "$BENCH_RUNS"); do
    start=$(date +%s.%N)
    taskset -c 0 sqlite3 -csv -header "$WORK/export.sqlite" "SELECT * FROM t" >"$WORK/out.csv"
    times+=("$(echo "$(date +%s.%N) - $start" | bc -l)")
done
seconds=$(median "${times[@]}")
printf '| sqlite3 -csv to a file (the ceiling) | %s | %.2f | %.0f | — |\n' "$(rate "$seconds")" "$seconds" \
    "$(echo "$(stat -c %s "$WORK/out.csv") / 1000000" | bc -l)"

start_sqlited "$WORK/export.sqlite"
url="http://127.0.0.1:$PORT"
export_once() { # label, lines expected (every row's and the head's), then curl's arguments
    local label=$1 lines=$2; shift 2
    local times=() size=0 out
    for _ in $(seq "$BENCH_RUNS"); do
        out=$(taskset -c 1 curl -s -S -o "$WORK/out" -w '%{time_total} %{size_download} %{http_code}' "$@")
        [[ ${out##* } == 200 ]] || { log "$label: HTTP ${out##* }"; exit 1; }
        read -r seconds size _ <<<"$out"
        times+=("$seconds")
        [[ $(wc -l <"$WORK/out") == "$lines" ]] || { log "$label: $(wc -l <"$WORK/out") lines, not $lines"; exit 1; }
    done
    seconds=$(median "${times[@]}")
    printf '| %s | %s | %.2f | %.0f | %s |\n' "$label" "$(rate "$seconds")" "$seconds" \
        "$(echo "$size / 1000000" | bc -l)" "$(hwm_mib "$SERVER_PID")"
}
log "server RSS at start: $(hwm_mib "$SERVER_PID") MiB"
export_once "GET /tables/t/rows, CSV" $((ROWS + 1)) -H 'Accept: text/csv' "$url/tables/t/rows"
export_once "GET /tables/t/rows, NDJSON" $((ROWS + 2)) -H 'Accept: application/x-ndjson' "$url/tables/t/rows"
export_once "POST /query, CSV" $((ROWS + 1)) -H 'Accept: text/csv' --json '{"sql": "SELECT * FROM t"}' "$url/query"
export_once "POST /query, NDJSON" $((ROWS + 2)) -H 'Accept: application/x-ndjson' --json '{"sql": "SELECT * FROM t"}' "$url/query"
export_once "POST /query, CSV over HTTP/2" $((ROWS + 1)) --http2-prior-knowledge -H 'Accept: text/csv' \
    --json '{"sql": "SELECT * FROM t"}' "$url/query"
stop_sqlited

if command -v datasette >/dev/null; then
    taskset -c 0 datasette serve "$WORK/export.sqlite" --port 0 --host 127.0.0.1 --setting max_returned_rows 1000 \
        --setting sql_time_limit_ms 600000 --setting max_csv_mb 0 >"$WORK/datasette.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        DPORT=$(sed -n 's/.*Uvicorn running on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/datasette.log" | head -1)
        [[ -n $DPORT ]] && break
        sleep 0.2
    done
    [[ -n ${DPORT:-} ]] || { log "datasette did not start"; cat "$WORK/datasette.log" >&2; exit 1; }
    export_once "Datasette $(datasette --version | awk '{ print $NF }') CSV (_stream=on)" $((ROWS + 1)) \
        "http://127.0.0.1:$DPORT/export/t.csv?_stream=on&_size=max"
    stop_sqlited
else
    log "datasette is not installed (pip install datasette): no peer row"
fi

if [[ -n ${BENCH_RSS_ROWS:-} ]]; then
    rm -f "$WORK/export.sqlite"* "$WORK/out" "$WORK/out.csv"
    log "creating the big table ($BENCH_RSS_ROWS rows)"
    make_table "$WORK/big.sqlite" "$BENCH_RSS_ROWS"
    echo
    echo "Peak RSS exporting $BENCH_RSS_ROWS rows ($(( $(stat -c %s "$WORK/big.sqlite") / 1000000 )) MB of database):"
    echo
    echo "| export | rows/s | seconds | GB sent | server peak RSS MiB |"
    echo "|---|---:|---:|---:|---:|"
    start_sqlited "$WORK/big.sqlite"
    url="http://127.0.0.1:$PORT"
    for path in tables query; do
        if [[ $path == tables ]]; then
            out=$(taskset -c 1 curl -s -S -o /dev/null -w '%{time_total} %{size_download}' -H 'Accept: text/csv' \
                "$url/tables/t/rows")
        else
            out=$(taskset -c 1 curl -s -S -o /dev/null -w '%{time_total} %{size_download}' -H 'Accept: text/csv' \
                --json '{"sql": "SELECT * FROM t"}' "$url/query")
        fi
        read -r seconds size <<<"$out"
        printf '| %s, CSV | %.0f | %.1f | %.2f | %s |\n' "$([[ $path == tables ]] && echo "GET /tables/t/rows" || echo "POST /query")" \
            "$(echo "$BENCH_RSS_ROWS / $seconds" | bc -l)" "$seconds" "$(echo "$size / 1000000000" | bc -l)" \
            "$(hwm_mib "$SERVER_PID")"
    done
    stop_sqlited
fi
