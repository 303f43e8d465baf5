# Small helpers of the HTTP benchmarks (sourced, not run; scripts/bench-http.sh, and through
# scripts/lib/bench-sqlited.sh the write benchmarks): free_port, probe_insert, to_ms, median. probe_insert needs
# WORK.

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
