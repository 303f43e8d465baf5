#!/usr/bin/env bash
# HTTP load benchmarks: sqlited against C reference servers, measured with wrk on loopback.
#
# Usage: scripts/bench-http.sh [seconds]        (seconds per wrk run, default 10)
#        BENCH_LAYOUT=shared scripts/bench-http.sh [seconds]
#
# BENCH_LAYOUT=pinned (the default, the headline figure): POST /query only, the server under test pinned to CPU 0
# (`taskset -c 0`) and `wrk -t1 -c64` pinned to CPU 1, so that the server's cost per request on one core is what is
# measured (with both sharing both cores, the load generator's own limits hide it). Three servers, one after the
# other in each of BENCH_RUNS rounds (every server once per round), medians reported:
#   sqlited-defaults  sqlited at its defaults: the request log at `info`, stderr to a file (as under systemd, where
#                     journald reads it; a file keeps journald's own cost out of the figure)
#   sqlited-log-off   the same build with the request log off (`--log-level warning`)
#   reference         Benchmarks/http/reference-server.c query
# Each server keeps its default thread count (one event loop / worker per online CPU, so two on this core).
#
# BENCH_LAYOUT=shared: every workload, wrk and the servers sharing the machine's cores (no pinning).
# Pairs measured (each server started fresh on a free 127.0.0.1 port, checked for a correct answer, loaded
# with `wrk -t2 -c64 -d${seconds}s --latency` BENCH_RUNS times, its peak RSS read from /proc, then stopped):
#   query   sqlited POST /query          vs  reference-server query   (Benchmarks/http/query.lua)
#   update  sqlited POST /update         vs  reference-server update  (Benchmarks/http/update.lua)
#   static  sqlited-http-bench GET /     vs  nginx, reference-server static (Benchmarks/http/static.lua)
# and prints one Markdown table on stdout (progress goes to stderr).
#
# Environment:
#   BENCH_NO_SWIFT_BUILD=1  do not run `swift build`; use the release binaries already built, if any.
#   BENCH_BIN_DIR=DIR       take sqlited and sqlited-http-bench from DIR (no `swift build`), e.g. another
#                           checkout's .build/release.
#   BENCH_WORKDIR=DIR       where the databases and logs go (default: a new directory under ${TMPDIR:-/tmp}).
#                           The update workload fsyncs every commit, so the file system of DIR matters.
#   WRK_THREADS, WRK_CONNECTIONS  wrk's -t and -c (default 1 pinned, 2 shared; and 64).
#   BENCH_RUNS=N            wrk runs per server and workload, back to back on the same server (default 3); the
#                           table shows the median of each figure over the runs.
#
# In the shared layout wrk and the servers share the machine's cores (no taskset pinning): the figures are for
# comparing the servers with each other on this machine, not absolute capacities.
set -euo pipefail

BENCH_LAYOUT=${BENCH_LAYOUT:-pinned}
case $BENCH_LAYOUT in
pinned | shared) ;;
*)
    echo "BENCH_LAYOUT must be pinned or shared" >&2
    exit 2
    ;;
esac

DURATION=${1:-10}
if ! [[ $DURATION =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [seconds]   (a positive whole number of seconds per wrk run)" >&2
    exit 2
fi
if [[ $BENCH_LAYOUT == pinned ]]; then
    WRK_THREADS=${WRK_THREADS:-1}
else
    WRK_THREADS=${WRK_THREADS:-2}
fi
WRK_CONNECTIONS=${WRK_CONNECTIONS:-64}
BENCH_RUNS=${BENCH_RUNS:-3}
if ! [[ $BENCH_RUNS =~ ^[1-9][0-9]*$ ]]; then
    echo "BENCH_RUNS must be a positive whole number" >&2
    exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/Benchmarks/http
WORK=${BENCH_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/sqlited-bench-http.XXXXXX")}
mkdir -p "$WORK"

log() { echo "bench-http: $*" >&2; }

# The pinned layout's CPU prefixes (empty arrays in the shared layout).
SERVER_PIN=()
WRK_PIN=()
if [[ $BENCH_LAYOUT == pinned ]]; then
    if (($(nproc) < 2)); then
        echo "BENCH_LAYOUT=pinned needs 2 CPUs (one for the server, one for wrk); this machine has $(nproc)" >&2
        exit 1
    fi
    command -v taskset >/dev/null || { echo "taskset (util-linux) is required for BENCH_LAYOUT=pinned" >&2; exit 1; }
    SERVER_PIN=(taskset -c 0)
    WRK_PIN=(taskset -c 1)
fi

# ------------------------------------------------------------------ cleanup: stop only what we started

SERVER_PID=""
stop_server() {
    local pid=$1
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do # at most 5 s for a graceful stop
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "pid $pid did not stop on SIGTERM within 5 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    stop_server "$SERVER_PID"
    rm -f "$WORK"/*.sqlite "$WORK"/*.sqlite-wal "$WORK"/*.sqlite-shm
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ tools

apt_install() { # package...
    local sudo=""
    if [[ $(id -u) != 0 ]]; then
        command -v sudo >/dev/null || { log "need root or sudo to apt-get install $*"; return 1; }
        sudo="sudo"
    fi
    command -v apt-get >/dev/null || { log "no apt-get: install $* by hand"; return 1; }
    log "installing $* with apt-get"
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

command -v wrk >/dev/null || apt_install wrk || { log "wrk is required"; exit 1; }
command -v curl >/dev/null || apt_install curl || { log "curl is required"; exit 1; }
command -v sqlite3 >/dev/null || apt_install sqlite3 || { log "the sqlite3 CLI is required"; exit 1; }
[[ -f /usr/include/sqlite3.h ]] || apt_install libsqlite3-dev || { log "libsqlite3-dev is required"; exit 1; }
command -v cc >/dev/null || apt_install gcc libc6-dev || { log "a C compiler is required"; exit 1; }
NGINX=$(command -v nginx || true)
[[ -n $NGINX || ! -x /usr/sbin/nginx ]] || NGINX=/usr/sbin/nginx
if [[ -z $NGINX ]]; then
    apt_install nginx-light || true
    NGINX=$(command -v nginx || true)
    [[ -n $NGINX || ! -x /usr/sbin/nginx ]] || NGINX=/usr/sbin/nginx
fi

# ------------------------------------------------------------------ builds

log "building the C reference server"
REFERENCE=$WORK/reference-server
cc -O2 -o "$REFERENCE" "$BENCH/reference-server.c" -lsqlite3 -lpthread

declare -A SKIPPED=() # product -> why it is not measured
SWIFT_BIN=""
if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    SWIFT_BIN=$(cd "$BENCH_BIN_DIR" && pwd)
    log "using sqlited binaries from $SWIFT_BIN (BENCH_BIN_DIR)"
elif command -v swift >/dev/null; then
    if [[ ${BENCH_NO_SWIFT_BUILD:-0} != 1 ]]; then
        PRODUCTS=(sqlited sqlited-http-bench)
        [[ $BENCH_LAYOUT == shared ]] || PRODUCTS=(sqlited)
        for product in "${PRODUCTS[@]}"; do
            log "swift build -c release --product $product (log: $WORK/build-$product.log)"
            if ! (cd "$ROOT" && swift build -c release --product "$product") >"$WORK/build-$product.log" 2>&1; then
                SKIPPED[$product]="release build failed or product missing: $(grep -m1 -E 'error' "$WORK/build-$product.log" | cut -c1-200)"
                log "skipping $product: ${SKIPPED[$product]}"
            fi
        done
    fi
    SWIFT_BIN=$(cd "$ROOT" && swift build -c release --show-bin-path 2>/dev/null || true)
else
    SKIPPED[sqlited]="no swift toolchain on PATH"
    SKIPPED[sqlited-http-bench]="no swift toolchain on PATH"
fi
for product in sqlited sqlited-http-bench; do
    if [[ -z ${SKIPPED[$product]:-} && ! -x $SWIFT_BIN/$product ]]; then
        SKIPPED[$product]="no release binary at ${SWIFT_BIN:-.build/release}/$product"
    fi
done

# ------------------------------------------------------------------ database

BASE_DB=$WORK/base.sqlite
log "creating $BASE_DB: t with 100000 rows, empty w"
rm -f "$BASE_DB"
sqlite3 "$BASE_DB" >/dev/null <<'SQL'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score INTEGER, created REAL);
CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT);
BEGIN;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
INSERT INTO t SELECT i, 'user ' || i, 'user' || i || '@example.com', abs(random()) % 1000,
                     2460000.5 + i / 86400.0 FROM s;
COMMIT;
SQL
[[ $(sqlite3 "$BASE_DB" "SELECT count(*) FROM t") == 100000 ]] || { log "database setup failed"; exit 1; }

# ------------------------------------------------------------------ helpers

source "$ROOT/scripts/lib/bench-helpers.sh"

# probe WORKLOAD URL OUT: one request like the workload's; succeeds when the answer is a correct 200.
probe() {
    local workload=$1 url=$2 out=$3 code
    case $workload in
    query)
        code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 2 -X POST -H 'Content-Type: application/json' \
            -d '{"sql": "SELECT * FROM t WHERE id = ?", "params": [42]}' "$url/query" 2>/dev/null) || return 1
        [[ $code == 200 ]] && grep -q '"id" *: *42[,}]' "$out" && grep -q '"user42@example.com"' "$out"
        ;;
    update)
        code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 2 -X POST -H 'Content-Type: application/json' \
            -d '{"sql": "INSERT INTO w(v) VALUES (?)", "params": ["x"]}' "$url/update" 2>/dev/null) || return 1
        [[ $code == 200 ]] && grep -q '"changes" *: *1[,}]' "$out"
        ;;
    static)
        code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 2 "$url/" 2>/dev/null) || return 1
        [[ $code == 200 ]]
        ;;
    esac
}

# Peak resident set of a process and its direct children (nginx's workers), in KiB: VmHWM is the
# high-water mark the kernel keeps, so reading it once at the end of the run is enough.
peak_rss_kib() {
    local pid=$1 total=0 p hwm children
    children=$(cat /proc/"$pid"/task/*/children 2>/dev/null || true)
    for p in $pid $children; do
        hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$p"/status 2>/dev/null || true)
        total=$((total + ${hwm:-0}))
    done
    echo "$total"
}


declare -a ROWS=()        # "server|workload|rps|p50|p99|rss|errors"
declare -A RPS=()         # "server|workload" -> requests/s
declare -a NOTES=()

# run_case SERVER WORKLOAD LUA PORT COMMAND...: start, probe, load, measure, stop.
run_case() {
    local server=$1 workload=$2 lua=$3 port=$4
    shift 4
    local url="http://127.0.0.1:$port" slug="${server// /_}-$workload"
    local server_log=$WORK/$slug.server.log wrk_log=$WORK/$slug.wrk.log
    log "[$server / $workload] starting on port $port"
    "${SERVER_PIN[@]}" "$@" >"$server_log" 2>&1 &
    SERVER_PID=$!
    local i ready=0
    for ((i = 0; i < 150; i++)); do # up to 15 s to start answering
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
        if probe "$workload" "$url" "$WORK/$slug.probe.json"; then
            ready=1
            break
        fi
        sleep 0.1
    done
    if [[ $ready != 1 ]]; then
        local why="did not give a correct answer to a $workload request within 15 s"
        kill -0 "$SERVER_PID" 2>/dev/null || why="exited before answering"
        log "[$server / $workload] $why; log: $server_log"
        NOTES+=("$server ($workload): not measured, $why (see $server_log).")
        ROWS+=("$server|$workload|—|—|—|—|—")
        stop_server "$SERVER_PID"
        SERVER_PID=""
        return 0
    fi
    # BENCH_RUNS loads in a row on the same server; each figure reported is the median over the runs (the
    # machine's other work makes single runs jumpy, the tail latency most of all).
    local run wrk_ok=1 socket_errors=0 non2xx=0
    local -a rps_runs=() p50_runs=() p99_runs=()
    for ((run = 1; run <= BENCH_RUNS; run++)); do
        log "[$server / $workload] run $run/$BENCH_RUNS: wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${DURATION}s"
        local run_log=$wrk_log.$run
        if ! timeout $((DURATION + 60)) "${WRK_PIN[@]}" wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${DURATION}s" --latency \
            -s "$BENCH/$lua" "$url" >"$run_log" 2>&1; then
            wrk_ok=0
            cp "$run_log" "$wrk_log"
            break
        fi
        cat "$run_log" >>"$wrk_log"
        rps_runs+=("$(awk '/^Requests\/sec:/ { print $2 }' "$run_log")")
        p50_runs+=("$(to_ms "$(awk '$1 == "50%" { print $2 }' "$run_log")")")
        p99_runs+=("$(to_ms "$(awk '$1 == "99%" { print $2 }' "$run_log")")")
        local run_socket_errors run_non2xx
        run_socket_errors=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$run_log")
        run_non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$run_log")
        socket_errors=$((socket_errors + ${run_socket_errors:-0}))
        non2xx=$((non2xx + ${run_non2xx:-0}))
    done
    local rss_kib
    rss_kib=$(peak_rss_kib "$SERVER_PID")
    local alive=1
    kill -0 "$SERVER_PID" 2>/dev/null || alive=0
    stop_server "$SERVER_PID"
    SERVER_PID=""

    local rps="" p50="" p99="" errors
    if [[ $wrk_ok == 1 ]]; then
        rps=$(median "${rps_runs[@]}")
        p50=$(median "${p50_runs[@]}")
        p99=$(median "${p99_runs[@]}")
    fi
    errors=$((socket_errors + non2xx))
    if [[ $wrk_ok != 1 || -z $rps ]]; then
        NOTES+=("$server ($workload): wrk failed (see $wrk_log).")
        ROWS+=("$server|$workload|—|—|—|—|—")
        return 0
    fi
    [[ $alive == 1 ]] || NOTES+=("$server ($workload): the server was no longer running at the end of the run.")
    if ((errors > 0)); then
        NOTES+=("$server ($workload): ${socket_errors:-0} socket errors, ${non2xx:-0} non-2xx/3xx answers (see $wrk_log).")
    fi
    RPS["$server|$workload"]=$rps
    ROWS+=("$server|$workload|$rps|$p50|$p99|$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')|$errors")
    log "[$server / $workload] median of $BENCH_RUNS: $rps requests/s, p50 $p50 ms, p99 $p99 ms, peak RSS ${rss_kib} KiB, errors $errors"
}

fresh_db() { # a pristine copy per server, so every update run starts from the same database
    local db=$WORK/$1.sqlite
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$BASE_DB" "$db"
    echo "$db"
}

start_nginx() { # PORT: prints nothing; runs nginx in the foreground (exec, so $! is nginx's master)
    local port=$1 prefix=$WORK/nginx
    rm -rf "$prefix"
    mkdir -p "$prefix"
    sed -e "s|@PORT@|$port|g" -e "s|@PREFIX@|$prefix|g" "$BENCH/nginx.conf" >"$prefix/nginx.conf"
    exec "$NGINX" -p "$prefix/" -c "$prefix/nginx.conf" -e stderr
}

# ------------------------------------------------------------------ runs

# Other work on the machine skews every figure here (the cores are shared), so the report shows the load.
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

SQLITED=$SWIFT_BIN/sqlited
HTTP_BENCH=$SWIFT_BIN/sqlited-http-bench

if [[ $BENCH_LAYOUT == pinned ]]; then
    # Round by round: each round starts every server afresh and loads it once, so a drift of the machine during
    # the run touches the three alike (one server after the other, three loads each, let it favour one).
    ROUNDS=$BENCH_RUNS
    BENCH_RUNS=1
    for ((round = 1; round <= ROUNDS; round++)); do
        log "round $round/$ROUNDS"
        if [[ -n ${SKIPPED[sqlited]:-} ]]; then
            if ((round == 1)); then
                for server in sqlited-defaults sqlited-log-off; do
                    NOTES+=("$server (query): skipped, ${SKIPPED[sqlited]}.")
                    ROWS+=("$server|query|—|—|—|—|—")
                done
            fi
        else
            db=$(fresh_db sqlited-defaults)
            port=$(free_port)
            # The defaults: the request log at info, written to stderr, which run_case sends to a file.
            run_case sqlited-defaults query query.lua "$port" "$SQLITED" --database "$db" --host 127.0.0.1 --port "$port"
            db=$(fresh_db sqlited-log-off)
            port=$(free_port)
            run_case sqlited-log-off query query.lua "$port" \
                "$SQLITED" --database "$db" --host 127.0.0.1 --port "$port" --log-level warning
        fi
        db=$(fresh_db reference-query)
        port=$(free_port)
        run_case reference query query.lua "$port" "$REFERENCE" query "$port" "$db"
    done
    # One row per server: the medians of its rounds, the largest peak RSS, the errors summed.
    declare -a MERGED=()
    for server in sqlited-defaults sqlited-log-off reference; do
        rps_list=() p50_list=() p99_list=() rss_max="" errors_sum=0 dashes=""
        for row in "${ROWS[@]}"; do
            IFS='|' read -r name workload rps p50 p99 rss errors <<<"$row"
            [[ $name == "$server" ]] || continue
            if [[ $rps == "—" ]]; then
                dashes="$name|$workload|—|—|—|—|—"
                continue
            fi
            rps_list+=("$rps")
            p50_list+=("$p50")
            p99_list+=("$p99")
            rss_max=$(awk -v a="${rss_max:-0}" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
            errors_sum=$((errors_sum + errors))
        done
        if ((${#rps_list[@]} > 0)); then
            RPS["$server|query"]=$(median "${rps_list[@]}")
            MERGED+=("$server|query|${RPS["$server|query"]}|$(median "${p50_list[@]}")|$(median "${p99_list[@]}")|$rss_max|$errors_sum")
        elif [[ -n $dashes ]]; then
            MERGED+=("$dashes")
        fi
    done
    ROWS=("${MERGED[@]}")
    BENCH_RUNS=$ROUNDS
else
    for workload in query update; do
        if [[ -n ${SKIPPED[sqlited]:-} ]]; then
            NOTES+=("sqlited ($workload): skipped, ${SKIPPED[sqlited]}.")
            ROWS+=("sqlited|$workload|—|—|—|—|—")
        else
            db=$(fresh_db "sqlited-$workload")
            port=$(free_port)
            # --log-level warning: no per-request log line, as the reference servers write none.
            run_case sqlited "$workload" "$workload.lua" "$port" \
                "$SQLITED" --database "$db" --host 127.0.0.1 --port "$port" --log-level warning
        fi
        db=$(fresh_db "reference-$workload")
        port=$(free_port)
        run_case reference "$workload" "$workload.lua" "$port" "$REFERENCE" "$workload" "$port" "$db"
    done

    if [[ -n ${SKIPPED[sqlited-http-bench]:-} ]]; then
        NOTES+=("sqlited-http-bench (static): skipped, ${SKIPPED[sqlited-http-bench]}.")
        ROWS+=("sqlited-http-bench|static|—|—|—|—|—")
    else
        port=$(free_port)
        run_case sqlited-http-bench static static.lua "$port" "$HTTP_BENCH" --port "$port"
    fi
    if [[ -n $NGINX ]]; then
        port=$(free_port)
        run_case nginx static static.lua "$port" start_nginx "$port"
    else
        NOTES+=("nginx (static): skipped, nginx is not installed and apt-get could not install nginx-light.")
        ROWS+=("nginx|static|—|—|—|—|—")
    fi
    port=$(free_port)
    run_case reference static static.lua "$port" "$REFERENCE" static "$port"
fi

# ------------------------------------------------------------------ report

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo
echo "## HTTP benchmarks ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
UPDATE_NOTE="; updates use synchronous=FULL"
[[ $BENCH_LAYOUT == shared ]] || UPDATE_NOTE=""
if [[ $BENCH_LAYOUT == pinned ]]; then
    layout="the server under test pinned to CPU 0 (taskset -c 0), wrk to CPU 1 (taskset -c 1)"
else
    layout="shared by wrk and the server under test (no pinning)"
fi
echo "wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${DURATION}s --latency on 127.0.0.1, $BENCH_RUNS runs per row (median of each figure); $(nproc) CPUs (${cpu:-unknown CPU})," \
    "$layout. Database: $(stat -f -c %T "$WORK") file system," \
    "WAL; t has 100000 rows${UPDATE_NOTE}. reference = Benchmarks/http/reference-server.c" \
    "($(nproc) worker threads). Load average before: $LOAD_BEFORE, after: $LOAD_AFTER."
echo
echo "| server | workload | requests/s | p50 ms | p99 ms | peak RSS MiB | errors | vs reference |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
    IFS='|' read -r server workload rps p50 p99 rss errors <<<"$row"
    ratio="—"
    ref=${RPS["reference|$workload"]:-}
    if [[ $server == reference && -n $ref ]]; then
        ratio="1.00"
    elif [[ -n $ref && $rps != "—" ]]; then
        ratio=$(awk -v a="$rps" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')
    fi
    echo "| $server | $workload | $rps | $p50 | $p99 | $rss | $errors | $ratio |"
done
echo
if [[ -n ${RPS["sqlited-defaults|query"]:-} && -n ${RPS["sqlited-log-off|query"]:-} ]]; then
    echo "sqlited-defaults = the request log at info, to a file; sqlited-log-off = --log-level warning." \
        "Defaults vs log off: $(awk -v a="${RPS["sqlited-defaults|query"]}" -v b="${RPS["sqlited-log-off|query"]}" \
            'BEGIN { printf "%.2f", a / b }')× the requests/s."
    echo
fi
echo "errors = wrk socket errors + non-2xx/3xx answers. vs reference = requests/s divided by the reference" \
    "server's for the same workload. Peak RSS = VmHWM of the server process (for nginx, master + workers)."
if ((${#NOTES[@]} > 0)); then
    echo
    for note in "${NOTES[@]}"; do echo "- $note"; done
fi
echo
echo "Logs: $WORK"
