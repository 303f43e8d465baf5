#!/usr/bin/env bash
# HTTP/2 (h2c) against HTTP/1.1, side by side in one run, sqlited at its defaults (request log on), the server
# pinned to CPU 0 (`taskset -c 0`) and the client to CPU 1: POST /query, a point select by primary key on a
# 100,000-row table (one fixed body, as h2load sends), with
#   h2load h2c  -c 64 -m 1      64 connections, one stream at a time each
#   h2load h2c  -c 8  -m 8      8 connections, 8 concurrent streams each (64 in flight, as the HTTP/1.1 rows)
#   h2load h2c  -c 8  -m 32     8 connections, 32 concurrent streams each
#   h2load --h1 -c 64           HTTP/1.1, 64 connections
#   h2load --h1 -c 256          HTTP/1.1, 256 connections (as many requests in flight as -c 8 -m 32)
#   wrk -t1 -c64                HTTP/1.1, 64 connections (the tool of the other benchmarks)
# BENCH_RUNS rounds (default 3), every row once per round, medians. p99 comes from h2load's per-request log (--log-file) and from
# wrk --latency.
# Usage: scripts/bench-h2.sh [seconds]     (seconds per run, default 10)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N.
set -euo pipefail
NAME=bench-h2
TOOLS="h2load wrk"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-rows.sh"

make_point_table "$WORK/db.sqlite"
printf '%s' '{"sql": "SELECT * FROM t WHERE id = ?", "params": [4242]}' >"$WORK/body.json"

start_sqlited "$WORK/db.sqlite"
URL="http://127.0.0.1:$PORT/query"

wrk_round() { # INDEX
    local out
    out=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/http/query-fixed.lua" "http://127.0.0.1:$PORT")
    record "$1" "$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")" "$(wrk_p99_ms "$out")"
}

LABELS=(
    "h2load, h2c, -c 64 -m 1"
    "h2load --h1, HTTP/1.1, -c 64"
    "h2load, h2c, -c 8 -m 8 (64 in flight)"
    "h2load, h2c, -c 8 -m 32"
    "wrk, HTTP/1.1, -c 64"
    "h2load --h1, HTTP/1.1, -c 256"
)
rows_begin
# Round by round, every row once per round: a drift of the machine during the run touches every row alike.
for run in $(seq "$BENCH_RUNS"); do
    log "round $run/$BENCH_RUNS"
    h2load_round 0 "$URL" -c 64 -m 1
    h2load_round 1 "$URL" --h1 -c 64 -m 1
    h2load_round 2 "$URL" -c 8 -m 8
    h2load_round 3 "$URL" -c 8 -m 32
    wrk_round 4
    h2load_round 5 "$URL" --h1 -c 256 -m 1
done

print_rows "client, protocol, concurrency"
echo
echo "sqlited at its defaults (the request log at info, stderr to a file), server on CPU 0, client on CPU 1;" \
    "${DURATION}s per run, $BENCH_RUNS runs per row, medians. Load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
