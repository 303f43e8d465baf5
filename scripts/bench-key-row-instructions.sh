#!/usr/bin/env bash
# What SQLite alone costs for one Idempotency-Key row (issue #27), under callgrind: Benchmarks/sqlite/key-row-cost.c
# with sqlited's table, 24 keys per transaction, counted over the second half of the transactions. Prints
# instructions per key: the lookup, the lookup and a one-row INSERT each, and the lookup with one 24-row INSERT per
# transaction (each less the BEGIN/COMMIT-only baseline). Needs gcc, libsqlite3-dev and valgrind.
#
# Usage: scripts/bench-key-row-instructions.sh [transactions]     (default 400)
set -euo pipefail

TRANSACTIONS=${1:-400}
[[ $TRANSACTIONS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [transactions]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-key-row.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for tool in gcc valgrind; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is required" >&2; exit 1; }
done
gcc -O2 -o "$WORK/key-row-cost" "$ROOT/Benchmarks/sqlite/key-row-cost.c" -lsqlite3

# instructions MODE: instructions counted for MODE.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$1" "$WORK/key-row-cost" "$1" "$TRANSACTIONS" \
        "$WORK/t.db" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$WORK/cg.$1.1"
}

keys=$(((TRANSACTIONS - TRANSACTIONS / 2) * 24))
base=$(instructions 0)
per() { echo $((($1 - base) / keys)); }
lookup=$(per "$(instructions 1)")
one=$(per "$(instructions 2)")
group=$(per "$(instructions 3)")
echo "| per key (SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '?')) | instructions |"
echo "|---|---:|"
echo "| the lookup (no row) | $lookup |"
echo "| the lookup and a one-row INSERT, with its share of the COMMIT | $one |"
echo "| the lookup, and one 24-row INSERT per transaction | $group |"
