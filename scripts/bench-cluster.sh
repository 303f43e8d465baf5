#!/usr/bin/env bash
# Cluster mode vs a single node (issue #15): POST /update (a single-row INSERT, Benchmarks/http/update.lua) and
# POST /query (a point SELECT on a 100,000-row table, Benchmarks/http/query.lua) against
#   single           one sqlited at its defaults (the local backend, the request log at info to a file);
#   cluster-leader   a three-node loopback cluster at its defaults (network latency 0: dqlite's own), through the
#                    leader's HTTP port;
#   cluster-follower the same cluster through a follower's (every statement goes on to the leader).
# Every sqlited process (one, or all three nodes) pinned to CPU 0 (`taskset -c 0`), wrk -t1 -c64 to CPU 1: the
# machine has two cores, so the three nodes share the one the single node has. BENCH_RUNS rounds of wrk each on the
# same servers, medians reported, as one Markdown table on stdout (progress on stderr); the error counts are sums
# over the runs.
#
# Usage: scripts/bench-cluster.sh [seconds]     (seconds per wrk run, default 10)
# Environment: BENCH_BIN_DIR=DIR (sqlited from DIR, no build), BENCH_RUNS=N (default 3).
set -euo pipefail
NAME=bench-cluster
TOOLS="wrk curl"
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-common.sh"

CLUSTER_PIDS=()
stop_cluster() {
    local pid
    for pid in "${CLUSTER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    CLUSTER_PIDS=()
}
trap 'stop_cluster; cleanup' EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_cluster: three nodes on CPU 0; sets HTTP_PORTS (node 1..3) and CLUSTER_PIDS.
start_cluster() {
    HTTP_PORTS=()
    local id join=() raft previous=""
    for id in 1 2 3; do
        HTTP_PORTS[id]=$(free_port)
        raft=127.0.0.1:$(free_port)
        join=()
        [[ -z $previous ]] || join=(--cluster-join "$previous")
        taskset -c 0 "$BIN" --host 127.0.0.1 --port "${HTTP_PORTS[id]}" --database "$WORK/unused-$id.sqlite" \
            --cluster-node-id "$id" --cluster-address "$raft" --cluster-data-dir "$WORK/node$id" "${join[@]}" \
            >"$WORK/node$id.log" 2>&1 &
        CLUSTER_PIDS+=($!)
        previous=$raft
        local i
        for i in $(seq 600); do
            [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${HTTP_PORTS[id]}/health") == 200 ]] && break
            ((i < 600)) || { log "node $id did not become ready"; cat "$WORK/node$id.log" >&2; exit 1; }
            sleep 0.1
        done
    done
}

post() { curl -sf --max-time 120 --json "$2" "http://127.0.0.1:$1$3"; }

# load PORT: the tables of the workloads (t with 100,000 rows as make_point_table makes it, empty w).
load_tables() {
    post "$1" '{"sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL)"}' /update >/dev/null
    post "$1" '{"sql": "CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT)"}' /update >/dev/null
    local from
    for from in 0 20000 40000 60000 80000; do
        post "$1" "{\"sql\": \"WITH RECURSIVE s(i) AS (SELECT $from + 1 UNION ALL SELECT i + 1 FROM s WHERE i < $from + 20000) INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000, 2460000.5 + i / 86400.0 FROM s\"}" /update >/dev/null
    done
    [[ $(post "$1" '{"sql": "SELECT count(*) FROM t", "shape": "arrays"}' /query) == *'[[100000]]'* ]] || { log "loading t failed"; exit 1; }
}

ROWS=()
# measure LABEL PORT: BENCH_RUNS wrk runs of each workload; appends table rows.
measure() {
    local label=$1 port=$2 workload out
    for workload in update query; do
        local rps=() p50=() p99=() non2xx=0 timeouts=0 socket=0
        for _ in $(seq "$BENCH_RUNS"); do
            log "$label / $workload: wrk -t1 -c64 -d${DURATION}s"
            out=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency -s "$ROOT/Benchmarks/http/$workload.lua" "http://127.0.0.1:$port")
            rps+=("$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")")
            p50+=("$(awk '$1 == "50%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$out")")
            p99+=("$(wrk_p99_ms "$out")")
            non2xx=$((non2xx + $(awk '/Non-2xx/ { s += $NF } END { print s + 0 }' <<<"$out")))
            # "Socket errors: connect 0, read 0, write 0, timeout 9": wrk's timeout is 2 s.
            timeouts=$((timeouts + $(awk '/Socket errors/ { gsub(",", ""); s += $10 } END { print s + 0 }' <<<"$out")))
            socket=$((socket + $(awk '/Socket errors/ { gsub(",", ""); s += $4 + $6 + $8 } END { print s + 0 }' <<<"$out")))
        done
        ROWS+=("| $label | $workload | $(median "${rps[@]}") | $(median "${p50[@]}") | $(median "${p99[@]}") | $non2xx | $timeouts | $socket |")
    done
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "single node"
make_point_table "$WORK/single.sqlite"
sqlite3 "$WORK/single.sqlite" "CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT)"
start_sqlited "$WORK/single.sqlite"
measure single "$PORT"
stop_sqlited

log "three-node cluster"
start_cluster
leader=$(curl -s "http://127.0.0.1:${HTTP_PORTS[1]}/cluster" | sed -n 's/.*"leader":{"id":\([0-9]*\).*/\1/p')
[[ -n $leader ]] || { log "no leader"; exit 1; }
follower=$((leader % 3 + 1))
load_tables "${HTTP_PORTS[leader]}"
measure "cluster-leader (node $leader)" "${HTTP_PORTS[leader]}"
measure "cluster-follower (node $follower)" "${HTTP_PORTS[follower]}"
stop_cluster

echo "## Cluster benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo "wrk -t1 -c64 -d${DURATION}s --latency pinned to CPU 1; every sqlited process pinned to CPU 0; $BENCH_RUNS runs per" \
    "row (medians); $(nproc) CPUs. Load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| server | workload | requests/s | p50 ms | p99 ms | non-2xx | wrk timeouts (2 s) | other socket errors |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
