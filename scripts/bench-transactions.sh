#!/usr/bin/env bash
# Interactive transactions benchmark (issue #28): a read-modify-write (open, SELECT, UPDATE, commit: four requests
# through /transactions, the client adding one between the read and the write) against the same logic sent as one
# POST /transaction (SELECT, then UPDATE n = n + 1), from 1 client and from 16 (BENCH_CLIENTS), each client on its
# own row, synchronous=FULL, group commit on (the defaults). The server is pinned to CPU 0 (`taskset -c 0`), the
# load generator (Benchmarks/http/transactions-client.py: one keep-alive connection per client, which checks at
# the end that every row counts exactly the transactions its client completed) to CPU 1.
#
# Usage: scripts/bench-transactions.sh [seconds]      (seconds per run, default 10)
#
# Environment: BENCH_BIN_DIR (sqlited from there, no build), BENCH_NO_SWIFT_BUILD=1, BENCH_RUNS (default 3; medians
# shown), BENCH_CLIENTS (default "1 16").
# Prints one Markdown table on stdout (progress on stderr): transactions/s of each, and interactive / one request.
set -euo pipefail

DURATION=${1:-10}
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [seconds]" >&2; exit 2; }
BENCH_RUNS=${BENCH_RUNS:-3}
[[ $BENCH_RUNS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_RUNS must be a positive whole number" >&2; exit 2; }
CLIENTS=${BENCH_CLIENTS:-1 16}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-txn.XXXXXX")
log() { echo "bench-transactions: $*" >&2; }

SERVER_PID=""
stop_server() {
    [[ -n $SERVER_PID ]] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

for tool in python3 curl sqlite3 taskset; do
    command -v "$tool" >/dev/null || { log "$tool is required"; exit 1; }
done
(($(nproc) >= 2)) || log "fewer than 2 CPUs: pinning server and client to CPUs 0 and 1 will fail"

source "$ROOT/scripts/lib/bench-sqlited.sh"

declare -A TPS=() RETRIES=()
# measure MODE CLIENTS: per run a fresh database with rows 1..CLIENTS, the server pinned to CPU 0, the client to 1.
measure() {
    local mode=$1 clients=$2 run
    local -a tps=()
    local retries=0
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        local db=$WORK/$mode-$clients-$run.sqlite port
        sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE c(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $clients) INSERT INTO c SELECT i, 0 FROM s;
SQL
        port=$(free_port)
        taskset -c 0 "$SQLITED" --database "$db" --host 127.0.0.1 --port "$port" --log-level warning \
            >"$WORK/server.log" 2>&1 &
        SERVER_PID=$!
        local i
        for ((i = 0; i < 100; i++)); do
            curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
            sleep 0.1
        done
        log "[$mode c=$clients] run $run/$BENCH_RUNS"
        local out
        out=$(taskset -c 1 python3 "$ROOT/Benchmarks/http/transactions-client.py" "$port" "$clients" "$DURATION" "$mode")
        stop_server
        tps+=("$(cut -d' ' -f1 <<<"$out")")
        retries=$((retries + $(cut -d' ' -f3 <<<"$out")))
    done
    TPS[$mode,$clients]=$(median "${tps[@]}")
    RETRIES[$mode,$clients]=$retries
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for clients in $CLIENTS; do
    measure single "$clients"
    measure interactive "$clients"
done

echo "| clients | one POST /transaction: transactions/s | /transactions (4 requests): transactions/s | interactive / one request |"
echo "|---:|---:|---:|---:|"
for clients in $CLIENTS; do
    ratio=$(awk -v a="${TPS[interactive,$clients]:-0}" -v b="${TPS[single,$clients]:-0}" \
        'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "—" }')
    echo "| $clients | ${TPS[single,$clients]:-—} | ${TPS[interactive,$clients]:-—} | $ratio |"
done
echo
echo "${DURATION} s × $BENCH_RUNS runs per cell (medians), server on CPU 0, client on CPU 1; load average before: $LOAD_BEFORE."
for key in "${!RETRIES[@]}"; do
    ((RETRIES[$key] == 0)) || echo "note: $key: ${RETRIES[$key]} transactions tried again (503 or expired) over all runs"
done
