#!/usr/bin/env bash
# Failover of a three-node cluster (issue #15), N rounds of the scenario of the end-to-end test
# ClusterFailoverRoundsTests, against the release binary: three sqlited processes on 127.0.0.1 (network latency
# 20 ms, so elections take a few hundred ms); in each round 32 writers insert rows with keys of their own through
# the two followers' POST /update, the leader is killed (SIGKILL) once 64 writes are acknowledged, writes resume
# on a new leader, the old leader is started again; then each node in turn is made the leader (TRANSFER on the
# wire protocol: Raft hands over only to an up-to-date voter) and the round's rows are read through it, so every
# node's own copy is checked.
#
# A 503 saying nothing was changed is retried with the same key; a 503 saying the outcome is unknown is not (its
# key may be present, at most once). Per round: time to resume (SIGKILL to the first acknowledgment of a write
# sent after it), acknowledged / unknown (present) / retried / lost / duplicated / phantom (present though the last
# answer said nothing was changed). Node 1, 2, 3, 1, … is made the leader and killed in turn. Exits 1 if anything was lost, duplicated or a phantom.
#
# Usage: scripts/cluster-failover.sh [N]      (rounds, default 10)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build; e.g. .build/release), or SQLITED=path;
#              FAILOVER_WRITERS (default 32), FAILOVER_LATENCY_MS (cluster.network_latency_ms, default 20).
set -euo pipefail
ROUNDS=${1:-10}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rounds]" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${SQLITED:-} ]]; then
    :
elif [[ -n ${BENCH_BIN_DIR:-} ]]; then
    SQLITED=$BENCH_BIN_DIR/sqlited
else
    (cd "$ROOT" && swift build -c release --product sqlited >&2)
    SQLITED=$(cd "$ROOT" && swift build -c release --show-bin-path)/sqlited
fi
[[ -x $SQLITED ]] || { echo "cluster-failover: no sqlited at $SQLITED" >&2; exit 1; }
command -v python3 >/dev/null || { echo "cluster-failover: python3 is required" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlited-failover.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/scripts/lib/cluster_failover.py" "$SQLITED" "$WORK" "$ROUNDS" \
    "${FAILOVER_WRITERS:-32}" "${FAILOVER_LATENCY_MS:-20}"
