#!/usr/bin/env bash
# User-space instructions per POST /update (one single-row INSERT), without and with an Idempotency-Key, under
# valgrind's callgrind: the stable figure behind scripts/bench-idempotency.sh's wall-clock ratio (issue #27).
#
# Usage: scripts/bench-update-instructions.sh [requests]     (measured requests, default 3000)
#
# Each server is started under callgrind on a fresh database, warmed up with 300 requests, its counters zeroed,
# then sent exactly N requests by Benchmarks/http/update-client.py over 16 keep-alive connections (all 16 sent
# before any answer is read, so group commit forms groups); the result is the instructions counted (user space:
# callgrind does not see the kernel) divided by N. Needs valgrind, python3, sqlite3 and a release build of sqlited
# (`swift build -c release --product sqlited`; BENCH_BIN_DIR=DIR to take it from elsewhere).
set -euo pipefail

REQUESTS=${1:-3000}
[[ $REQUESTS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [requests]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-update-instructions.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in valgrind callgrind_control python3 sqlite3; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is required" >&2; exit 1; }
done
BIN=${BENCH_BIN_DIR:-$(cd "$ROOT" && swift build -c release --show-bin-path)}
[[ -x $BIN/sqlited ]] || { echo "$0: no release build at $BIN/sqlited" >&2; exit 1; }
# valgrind cannot read the DWARF of Swift 6 binaries; function symbols are enough.
strip --strip-debug -o "$WORK/sqlited" "$BIN/sqlited"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# measure MODE: prints instructions per request (MODE: plain or keyed).
measure() {
    local mode=$1 port log pid i total
    sqlite3 "$WORK/$mode.sqlite" "PRAGMA journal_mode=WAL; CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT);" >/dev/null
    port=$(free_port)
    log=$WORK/$mode.log
    valgrind --tool=callgrind --callgrind-out-file="$WORK/$mode.%p.out" "$WORK/sqlited" \
        --database "$WORK/$mode.sqlite" --host 127.0.0.1 --port "$port" >"$log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    for ((i = 0; i < 120; i++)); do
        grep -q "listening" "$log" && break
        sleep 0.5
    done
    grep -q "listening" "$log" || { echo "$0: $mode did not start (see $log)" >&2; cat "$log" >&2; exit 1; }
    python3 "$ROOT/Benchmarks/http/update-client.py" "$port" 300 "$mode"
    callgrind_control -z "$pid" >/dev/null 2>&1
    python3 "$ROOT/Benchmarks/http/update-client.py" "$port" "$REQUESTS" "$mode"
    callgrind_control -d "$pid" >/dev/null 2>&1
    sleep 1
    total=$(cat "$WORK"/"$mode".*.out.* | awk '/^summary:/ { print $2 }')
    kill "$pid" 2>/dev/null || true
    echo $((total / REQUESTS))
}

plain=$(measure plain)
keyed=$(measure keyed)
echo "| POST /update | user-space instructions per request |"
echo "|---|---:|"
echo "| no key | $plain |"
echo "| Idempotency-Key | $keyed |"
echo; awk -v a="$plain" -v b="$keyed" 'BEGIN { printf "keyed / no key (instructions): %.2f\n", a / b }'
