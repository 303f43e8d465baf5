#!/usr/bin/env bash
# The ceiling of HTTP/2 at one stream per connection: the two minimal C servers of Benchmarks/http side by side,
# with no framework around either, on the point select of scripts/bench-h2.sh (POST /query, a select by primary
# key on a 100,000-row table, one fixed body as h2load sends):
#   (a) reference-server query      HTTP/1.1   h2load --h1 -c 64 -m 1
#   (b) reference-h2-server         h2c        h2load -c 64 -m 1     64 connections, one stream at a time each
#   (c) reference-h2-server         h2c        h2load -c 8 -m 8      8 connections, 8 streams each (64 in flight)
#   (d) sqlited (defaults)          HTTP/1.1   h2load --h1 -c 64 -m 1
#   (e) sqlited (defaults)          h2c        h2load -c 64 -m 1
# (b)/(a) is what libnghttp2's framing costs by itself, with nothing around it; (e)/(d) is sqlited's own ratio,
# measured in the same rounds. Each server runs one worker thread (THREADS=1) pinned to CPU 0, h2load (-t1) to CPU 1;
# BENCH_RUNS rounds (default 3), every row once per round, medians; p99 from h2load's per-request log.
# With CALLGRIND=1, each server (sqlited once per protocol) is also run under valgrind's callgrind and the user-space instructions per request
# are counted (400 requests of warm-up, counters zeroed, then h2load -n 4000 -c 4 -m 1; the kernel is not seen).
# Usage: scripts/bench-h2-ceiling.sh [seconds]     (seconds per run, default 10)
# Environment: BENCH_RUNS=N, CALLGRIND=1, BENCH_BIN_DIR=DIR (sqlited from DIR, no build). Needs a C compiler,
# libsqlite3-dev, libnghttp2-dev, h2load (nghttp2-client), sqlite3, and valgrind for CALLGRIND=1.
set -euo pipefail
NAME=bench-h2-ceiling
TOOLS="h2load cc"
[[ ${CALLGRIND:-0} == 0 ]] || TOOLS+=" valgrind callgrind_control"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-rows.sh"

BENCH=$ROOT/Benchmarks/http
cc -O2 -o "$WORK/reference-server" "$BENCH/reference-server.c" -lsqlite3 -lpthread
cc -O2 -o "$WORK/reference-h2-server" "$BENCH/reference-h2-server.c" -lsqlite3 -lnghttp2 -lpthread

make_point_table "$WORK/db.sqlite"
printf '%s' '{"sql": "SELECT * FROM t WHERE id = ?", "params": [4242]}' >"$WORK/body.json"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# start_server NAME COMMAND...: runs COMMAND in the background, its stderr to $WORK/NAME.log, and waits for its
# "listening on http://127.0.0.1:PORT" line; sets PORT and PID.
start_server() {
    local name=$1
    shift
    "$@" >"$WORK/$name.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    PORT=""
    for _ in $(seq 600); do
        PORT=$(sed -n 's/.*: listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/$name.log" | head -1)
        [[ -n $PORT ]] && return 0
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    log "$name did not start"; cat "$WORK/$name.log" >&2; exit 1
}

stop_server() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# The servers run through the whole measurement, each pinned to CPU 0 (the idle ones wait in epoll_wait).
start_server h1 taskset -c 0 "$WORK/reference-server" query 0 "$WORK/db.sqlite" 1
URL_H1="http://127.0.0.1:$PORT/query"
start_server h2 taskset -c 0 "$WORK/reference-h2-server" 0 "$WORK/db.sqlite" 1
URL_H2="http://127.0.0.1:$PORT/query"
start_sqlited "$WORK/db.sqlite"
PIDS+=("$SERVER_PID")
SERVER_PID=""
URL_SQLITED="http://127.0.0.1:$PORT/query"

LABELS=(
    "(a) reference-server query, HTTP/1.1, h2load --h1 -c 64 -m 1"
    "(b) reference-h2-server, h2c, h2load -c 64 -m 1"
    "(c) reference-h2-server, h2c, h2load -c 8 -m 8 (64 in flight)"
    "(d) sqlited, HTTP/1.1, h2load --h1 -c 64 -m 1"
    "(e) sqlited, h2c, h2load -c 64 -m 1"
)
rows_begin
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
# Round by round, every row once per round: a drift of the machine during the run touches every row alike.
for run in $(seq "$BENCH_RUNS"); do
    log "round $run/$BENCH_RUNS"
    h2load_round 0 "$URL_H1" --h1 -c 64 -m 1
    h2load_round 1 "$URL_H2" -c 64 -m 1
    h2load_round 2 "$URL_H2" -c 8 -m 8
    h2load_round 3 "$URL_SQLITED" --h1 -c 64 -m 1
    h2load_round 4 "$URL_SQLITED" -c 64 -m 1
done
for pid in "${PIDS[@]}"; do stop_server "$pid"; done
PIDS=()

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# callgrind_instructions NAME H2LOAD_FLAGS COMMAND...: sets CG_RESULT to the user-space instructions per request of
# the server COMMAND under callgrind (warm-up, zeroed counters, 4000 requests on 4 connections, one stream at a time).
CG_REQUESTS=4000
callgrind_instructions() {
    local name=$1 flags=$2
    shift 2
    start_server "cg-$name" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg-$name.%p.out" "$@"
    local pid=$PID url="http://127.0.0.1:$PORT/query" out total
    # shellcheck disable=SC2086 # flags is a word list ("" or --h1)
    h2load $flags -t1 -n 400 -c 4 -m 1 -d "$WORK/body.json" -H 'Content-Type: application/json' "$url" >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    # shellcheck disable=SC2086
    out=$(h2load $flags -t1 -n "$CG_REQUESTS" -c 4 -m 1 -d "$WORK/body.json" -H 'Content-Type: application/json' "$url" 2>&1)
    grep -q "$CG_REQUESTS succeeded, 0 failed" <<<"$out" || { log "[$name] h2load under callgrind: $out"; exit 1; }
    callgrind_control -d "$pid" >/dev/null 2>&1
    sleep 1
    total=$(cat "$WORK"/cg-"$name".*.out.* | awk '/^summary:/ { s += $2 } END { print s + 0 }')
    stop_server "$pid"
    PIDS=()
    CG_RESULT=$((total / CG_REQUESTS))
}

if [[ ${CALLGRIND:-0} != 0 ]]; then
    log "callgrind: reference-server query (HTTP/1.1)"
    callgrind_instructions h1 --h1 "$WORK/reference-server" query 0 "$WORK/db.sqlite" 1
    CG_H1=$CG_RESULT
    log "callgrind: reference-h2-server (h2c)"
    callgrind_instructions h2 "" "$WORK/reference-h2-server" 0 "$WORK/db.sqlite" 1
    CG_H2=$CG_RESULT
    # valgrind cannot read the DWARF of Swift 6 binaries; function symbols are enough.
    strip --strip-debug -o "$WORK/sqlited" "$BIN"
    for protocol in h1 h2; do
        cp "$WORK/db.sqlite" "$WORK/cg-$protocol.sqlite"
        log "callgrind: sqlited ($protocol)"
        callgrind_instructions "sqlited-$protocol" "$([[ $protocol == h1 ]] && echo --h1)" \
            "$WORK/sqlited" --database "$WORK/cg-$protocol.sqlite" --host 127.0.0.1 --port 0
        eval "CG_SQLITED_$protocol=$CG_RESULT"
    done
fi

print_rows "server, protocol, client"
echo
echo "h2c over HTTP/1.1 at 64 connections of one request at a time: C servers (b)/(a) $(ratio "$ROW_MEDIAN_1" "$ROW_MEDIAN_0")," \
    "sqlited (e)/(d) $(ratio "$ROW_MEDIAN_4" "$ROW_MEDIAN_3"); (c)/(a): $(ratio "$ROW_MEDIAN_2" "$ROW_MEDIAN_0")."
if [[ ${CALLGRIND:-0} != 0 ]]; then
    echo
    echo "| server, protocol | user-space instructions per POST /query | vs HTTP/1.1 |"
    echo "|---|---:|---:|"
    echo "| reference-server query, HTTP/1.1 | $CG_H1 | 1.00 |"
    echo "| reference-h2-server, h2c | $CG_H2 | $(ratio "$CG_H2" "$CG_H1") |"
    echo "| sqlited, HTTP/1.1 | $CG_SQLITED_h1 | 1.00 |"
    echo "| sqlited, h2c | $CG_SQLITED_h2 | $(ratio "$CG_SQLITED_h2" "$CG_SQLITED_h1") |"
    echo
    echo "callgrind: $CG_REQUESTS requests (h2load -c 4 -m 1) after 400 of warm-up, connection setup included."
fi
echo
echo "One worker thread per C server and sqlited at its defaults (request log on), all on CPU 0, h2load -t1 on CPU 1; ${DURATION}s per run (1s warm-up)," \
    "$BENCH_RUNS runs per row, medians. Load average before: $LOADAVG."
