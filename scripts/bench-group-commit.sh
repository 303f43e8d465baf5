#!/usr/bin/env bash
# Group commit benchmark: POST /update, one single-row INSERT per request, at 1, 8, 64 and 256 connections,
# for sqlited with group commit on, sqlited with it off (SQLITED_DATABASE_GROUP_COMMIT_ENABLED=false) and the C
# reference server in update mode (one transaction, one fsync, per request). synchronous=FULL everywhere (sqlited's
# default; the reference server sets it). The server is pinned to CPU 0 (`taskset -c 0`), wrk to CPU 1.
#
# Usage: scripts/bench-group-commit.sh [seconds]      (seconds per wrk run, default 10)
#
# Environment (as scripts/bench-http.sh):
#   BENCH_BIN_DIR=DIR      take sqlited from DIR instead of `swift build -c release --product sqlited`.
#   BENCH_NO_SWIFT_BUILD=1 use the release binary already built.
#   BENCH_WORKDIR=DIR      databases and logs (default: a new directory under ${TMPDIR:-/tmp}); the workload
#                          fsyncs, so DIR's file system matters.
#   BENCH_RUNS=N           wrk runs per cell (default 3); the table shows medians.
#   BENCH_CONNECTIONS="1 8 64 256"  connection counts.
# Prints one Markdown table on stdout (progress on stderr): requests/s, p50 and p99 latency per server and
# connection count, and the ratio of group commit on to off.
set -euo pipefail

DURATION=${1:-10}
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [seconds]" >&2; exit 2; }
BENCH_RUNS=${BENCH_RUNS:-3}
[[ $BENCH_RUNS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_RUNS must be a positive whole number" >&2; exit 2; }
CONNECTIONS=${BENCH_CONNECTIONS:-1 8 64 256}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/Benchmarks/http
WORK=${BENCH_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-gc.XXXXXX")}
mkdir -p "$WORK"
log() { echo "bench-group-commit: $*" >&2; }

SERVER_PID=""
stop_server() {
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    stop_server "$SERVER_PID"
    rm -f "$WORK"/*.sqlite "$WORK"/*.sqlite-wal "$WORK"/*.sqlite-shm
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in wrk curl sqlite3 cc taskset; do
    command -v "$tool" >/dev/null || { log "$tool is required (apt-get install wrk curl sqlite3 gcc util-linux)"; exit 1; }
done
(($(nproc) >= 2)) || log "fewer than 2 CPUs: pinning server and wrk to CPUs 0 and 1 will fail"

log "building the C reference server"
REFERENCE=$WORK/reference-server
cc -O2 -o "$REFERENCE" "$BENCH/reference-server.c" -lsqlite3 -lpthread

source "$ROOT/scripts/lib/bench-sqlited.sh"

BASE_DB=$WORK/base.sqlite
sqlite3 "$BASE_DB" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT);
SQL

declare -A RPS=() P50=() P99=() ERRORS=()

# measure NAME CONNECTIONS COMMAND...: fresh database, start pinned to CPU 0, probe, wrk pinned to CPU 1.
measure() {
    local name=$1 connections=$2
    shift 2
    local db=$WORK/$name-$connections.sqlite port url run
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$BASE_DB" "$db"
    port=$(free_port)
    url=http://127.0.0.1:$port
    local -a command=()
    local arg
    for arg in "$@"; do
        arg=${arg//@DB@/$db}
        command+=("${arg//@PORT@/$port}")
    done
    taskset -c 0 "${command[@]}" >"$WORK/$name-$connections.server.log" 2>&1 &
    SERVER_PID=$!
    local i ready=0
    for ((i = 0; i < 150; i++)); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        if probe_insert "$url"; then ready=1; break; fi
        sleep 0.1
    done
    if [[ $ready != 1 ]]; then
        log "[$name c=$connections] did not answer; see $WORK/$name-$connections.server.log"
        stop_server "$SERVER_PID"
        SERVER_PID=""
        return 0
    fi
    local threads=$((connections < 2 ? 1 : 2))
    local -a rps=() p50=() p99=()
    local errors=0
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        local out=$WORK/$name-$connections.wrk.$run
        log "[$name c=$connections] run $run/$BENCH_RUNS"
        timeout $((DURATION + 60)) taskset -c 1 wrk -t"$threads" -c"$connections" -d"${DURATION}s" --latency \
            -s "$BENCH/update.lua" "$url" >"$out" 2>&1 || { log "wrk failed: $out"; break; }
        rps+=("$(awk '/^Requests\/sec:/ { print $2 }' "$out")")
        p50+=("$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")")
        p99+=("$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")")
        errors=$((errors + $(awk '/Non-2xx or 3xx responses:/ { n = $NF } /Socket errors:/ { gsub(",", ""); s = $4 + $6 + $8 + $10 } END { print n + s }' "$out")))
    done
    stop_server "$SERVER_PID"
    SERVER_PID=""
    ((${#rps[@]} > 0)) || return 0
    RPS[$name,$connections]=$(median "${rps[@]}")
    P50[$name,$connections]=$(median "${p50[@]}")
    P99[$name,$connections]=$(median "${p99[@]}")
    ERRORS[$name,$connections]=$errors
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for connections in $CONNECTIONS; do
    measure "gc-on" "$connections" "$SQLITED" --database @DB@ --host 127.0.0.1 --port @PORT@ --log-level warning
    measure "gc-off" "$connections" env SQLITED_DATABASE_GROUP_COMMIT_ENABLED=false \
        "$SQLITED" --database @DB@ --host 127.0.0.1 --port @PORT@ --log-level warning
    measure "reference" "$connections" "$REFERENCE" update @PORT@ @DB@ 1
done

echo "| connections | group commit on: req/s | p50 ms | p99 ms | off: req/s | p50 ms | p99 ms | C reference: req/s | p50 ms | p99 ms | on / off |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for connections in $CONNECTIONS; do
    row="| $connections"
    for name in gc-on gc-off reference; do
        row+=" | ${RPS[$name,$connections]:-—} | ${P50[$name,$connections]:-—} | ${P99[$name,$connections]:-—}"
    done
    ratio=$(awk -v a="${RPS[gc-on,$connections]:-0}" -v b="${RPS[gc-off,$connections]:-0}" \
        'BEGIN { if (b > 0) printf "%.1f×", a / b; else printf "—" }')
    echo "$row | $ratio |"
done
echo
echo "wrk ${DURATION}s × $BENCH_RUNS runs per cell (medians), server on CPU 0, wrk on CPU 1; load average before: $LOAD_BEFORE."
for key in "${!ERRORS[@]}"; do
    ((ERRORS[$key] == 0)) || echo "note: $key: ${ERRORS[$key]} errors (non-2xx or socket errors)"
done
