#!/usr/bin/env bash
# Streaming exports (issue #29), sqlited at its defaults pinned to CPU 0, the client (curl) on CPU 1: a 1,000,000-row
# table (about 200 MB of CSV) out as CSV and NDJSON through GET /tables/t/rows and POST /query, against
# `sqlite3 -csv` writing the same table to a file (the ceiling, pinned to CPU 0) and, when `datasette` is installed
# (PyPI), Datasette's CSV stream (`?_stream=on`, pinned to CPU 0). Rows/s is 1,000,000 over curl's total time, the
# median of BENCH_RUNS runs; the server's peak RSS is VmHWM of /proc/PID/status after every export.
# Usage: scripts/bench-export.sh [rows]     (default 1000000)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N (default 3).
set -euo pipefail
ROWS=${1:-1000000}
[[ $ROWS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rows]" >&2; exit 2; }
NAME=bench-export
TOOLS="curl bc"
set -- 10
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"

log "creating the table ($ROWS rows)"
sqlite3 "$WORK/export.sqlite" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL, note TEXT);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $ROWS)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000, 2460000.5 + i / 86400.0,
  'a note, with a comma and "quotes", ' || hex(randomblob(40)) FROM s;
SQL

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
export_once() { # label, then curl's arguments
    local label=$1; shift
    local times=() size=0 out
    for _ in $(seq "$BENCH_RUNS"); do
        out=$(taskset -c 1 curl -s -S -o "$WORK/out" -w '%{time_total} %{size_download} %{http_code}' "$@")
        [[ ${out##* } == 200 ]] || { log "$label: HTTP ${out##* }"; exit 1; }
        read -r seconds size _ <<<"$out"
        times+=("$seconds")
    done
    seconds=$(median "${times[@]}")
    printf '| %s | %s | %.2f | %.0f | %s |\n' "$label" "$(rate "$seconds")" "$seconds" \
        "$(echo "$size / 1000000" | bc -l)" "$(hwm_mib "$SERVER_PID")"
}
log "server RSS at start: $(hwm_mib "$SERVER_PID") MiB"
export_once "GET /tables/t/rows, CSV" -H 'Accept: text/csv' "$url/tables/t/rows"
export_once "GET /tables/t/rows, NDJSON" -H 'Accept: application/x-ndjson' "$url/tables/t/rows"
export_once "POST /query, CSV" -H 'Accept: text/csv' --json '{"sql": "SELECT * FROM t"}' "$url/query"
export_once "POST /query, NDJSON" -H 'Accept: application/x-ndjson' --json '{"sql": "SELECT * FROM t"}' "$url/query"
export_once "POST /query, CSV over HTTP/2" --http2-prior-knowledge -H 'Accept: text/csv' \
    --json '{"sql": "SELECT * FROM t"}' "$url/query"
stop_sqlited

if command -v datasette >/dev/null; then
    taskset -c 0 datasette serve "$WORK/export.sqlite" --port 0 --host 127.0.0.1 --setting max_returned_rows 1000 \
        --setting sql_time_limit_ms 600000 >"$WORK/datasette.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        DPORT=$(sed -n 's/.*Uvicorn running on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/datasette.log" | head -1)
        [[ -n $DPORT ]] && break
        sleep 0.2
    done
    [[ -n ${DPORT:-} ]] || { log "datasette did not start"; cat "$WORK/datasette.log" >&2; exit 1; }
    export_once "Datasette $(datasette --version | awk '{ print $NF }') CSV (_stream=on)" \
        "http://127.0.0.1:$DPORT/export/t.csv?_stream=on&_size=max"
    stop_sqlited
else
    log "datasette is not installed (pip install datasette): no peer row"
fi
