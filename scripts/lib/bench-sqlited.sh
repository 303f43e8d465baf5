# Shared by scripts/bench-group-commit.sh, scripts/bench-idempotency.sh and scripts/bench-transactions.sh (sourced,
# not run). Before sourcing, define ROOT, WORK and log; afterwards SQLITED names the sqlited binary to measure (from
# BENCH_BIN_DIR, or a release build unless BENCH_NO_SWIFT_BUILD=1), and free_port, probe_insert, to_ms and median
# are defined.

if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    SQLITED=$(cd "$BENCH_BIN_DIR" && pwd)/sqlited
else
    if [[ ${BENCH_NO_SWIFT_BUILD:-0} != 1 ]]; then
        log "swift build -c release --product sqlited (log: $WORK/build.log)"
        (cd "$ROOT" && swift build -c release --product sqlited) >"$WORK/build.log" 2>&1 ||
            { log "release build failed: see $WORK/build.log"; cat "$WORK/build.log" >&2; exit 1; }
    fi
    SQLITED=$(cd "$ROOT" && swift build -c release --show-bin-path)/sqlited
fi
[[ -x $SQLITED ]] || { log "no sqlited binary at $SQLITED"; exit 1; }

# A TCP port on 127.0.0.1 nobody listens on (100 tries).
free_port() {
    local i port
    for ((i = 0; i < 100; i++)); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# probe_insert URL: one INSERT into w answered 200 with changes 1 (the server is up and takes writes).
probe_insert() {
    local out code
    out=$WORK/probe.json
    code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 2 -X POST -H 'Content-Type: application/json' \
        -d '{"sql": "INSERT INTO w(v) VALUES (?)", "params": ["x"]}' "$1/update" 2>/dev/null) || return 1
    [[ $code == 200 ]] && grep -q '"changes" *: *1[,}]' "$out"
}

# to_ms DURATION: a wrk duration (850.00us, 1.20ms, 2.00s, 1.00m) in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
        else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.3f", v * 60000 }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v * 1000 }
        else { printf "?" }
    }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
