#!/usr/bin/env bash
# User-space instructions per POST /query request, sqlited vs the C reference server, under valgrind's callgrind.
# sqlited is measured twice: at its defaults (the request log at `info`, stderr to a file) and with the request log
# off (`--log-level warning`).
#
# Usage: scripts/bench-http-instructions.sh [requests]     (measured requests, default 2000)
#
# Wall-clock figures on a shared 2-core machine move by 20% from run to run; instruction counts do not, so this is
# the figure to compare two builds of sqlited with. Each server is started under callgrind on a fresh copy of the
# same 100,000-row database, warmed up with 200 requests, its counters zeroed, then sent exactly N requests by
# Benchmarks/http/query-client.py; the result is the instructions counted (user space: callgrind does not see the
# kernel) divided by N. Needs valgrind, python3, sqlite3, a C compiler and a release build of sqlited
# (`swift build -c release --product sqlited`; BENCH_BIN_DIR=DIR to take it from elsewhere).
set -euo pipefail

REQUESTS=${1:-2000}
[[ $REQUESTS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [requests]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/Benchmarks/http
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-instructions.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in valgrind callgrind_control python3 sqlite3 cc; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is required" >&2; exit 1; }
done
BIN=${BENCH_BIN_DIR:-$(cd "$ROOT" && swift build -c release --show-bin-path)}
[[ -x $BIN/sqlited ]] || { echo "$0: no release build at $BIN/sqlited" >&2; exit 1; }
# valgrind cannot read the DWARF of Swift 6 binaries; function symbols are enough.
strip --strip-debug -o "$WORK/sqlited" "$BIN/sqlited"
cc -O2 -o "$WORK/reference-server" "$BENCH/reference-server.c" -lsqlite3 -lpthread

sqlite3 "$WORK/base.sqlite" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000,
                     2460000.5 + i / 86400.0 FROM s;
SQL

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# measure NAME PORT COMMAND...: prints instructions per request.
measure() {
    local name=$1 port=$2
    shift 2
    local log=$WORK/$name.log
    valgrind --tool=callgrind --callgrind-out-file="$WORK/$name.%p.out" "$@" >"$log" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    local i
    for ((i = 0; i < 120; i++)); do
        grep -q "listening" "$log" && break
        sleep 0.5
    done
    grep -q "listening" "$log" || { echo "$0: $name did not start (see $log)" >&2; cat "$log" >&2; exit 1; }
    python3 "$BENCH/query-client.py" "$port" 200 >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    python3 "$BENCH/query-client.py" "$port" "$REQUESTS" >/dev/null
    callgrind_control -d "$pid" >/dev/null 2>&1
    sleep 1
    local total
    total=$(cat "$WORK"/"$name".*.out.* | awk '/^summary:/ { print $2 }')
    kill "$pid" 2>/dev/null || true
    echo $((total / REQUESTS))
}

cp "$WORK/base.sqlite" "$WORK/reference.sqlite"
port=$(free_port)
reference=$(measure reference "$port" "$WORK/reference-server" query "$port" "$WORK/reference.sqlite")
cp "$WORK/base.sqlite" "$WORK/defaults.sqlite"
port=$(free_port)
defaults=$(measure defaults "$port" "$WORK/sqlited" --database "$WORK/defaults.sqlite" --host 127.0.0.1 --port "$port")
lines=$(grep -c ': request ' "$WORK/defaults.log" || true)
((lines >= REQUESTS)) || { echo "$0: expected request log lines at the defaults, found $lines" >&2; exit 1; }
cp "$WORK/base.sqlite" "$WORK/logoff.sqlite"
port=$(free_port)
logoff=$(measure logoff "$port" "$WORK/sqlited" --database "$WORK/logoff.sqlite" --host 127.0.0.1 \
    --port "$port" --log-level warning)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "| server | user-space instructions per POST /query | vs reference |"
echo "|---|---:|---:|"
echo "| sqlited, defaults (request log at info, to a file) | $defaults | $(ratio "$defaults" "$reference") |"
echo "| sqlited, request log off (--log-level warning) | $logoff | $(ratio "$logoff" "$reference") |"
echo "| reference | $reference | 1.00 |"
