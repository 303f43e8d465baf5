# Rows of h2load runs, shared by scripts/bench-h2.sh and scripts/bench-h2-ceiling.sh (sourced after
# bench-common.sh, not run). A script sets LABELS (one label per row), calls rows_begin, then, round by round,
# h2load_round (or record with figures of its own) for each row; print_rows writes the Markdown table of medians
# and sets ROW_MEDIAN_<n> (requests/s) for ratios.

# p99 in ms of an h2load --log-file (third column: microseconds until the end of the response).
p99_of_log() { awk '{ print $3 }' "$1" | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int(NR * 0.99)] / 1000 }'; }

rows_begin() {
    local index
    for index in "${!LABELS[@]}"; do eval "ROW_RPS_$index=(); ROW_P99_$index=()"; done
}

record() { # INDEX RPS P99 (numbers)
    eval "ROW_RPS_$1+=($2); ROW_P99_$1+=($3)"
}

# One round of a row: h2load on CPU 1 for DURATION seconds against URL (POST of $WORK/body.json); appends
# requests/s and p99 to the row's lists (ROW_RPS_<n>, ROW_P99_<n>).
h2load_round() { # INDEX URL ARGS...
    local index=$1 url=$2 out failed
    shift 2
    rm -f "$WORK/h2load.log"
    out=$(taskset -c 1 h2load -t1 -D "$DURATION" --warm-up-time=1 -d "$WORK/body.json" \
        -H 'Content-Type: application/json' --log-file="$WORK/h2load.log" "$@" "$url" 2>&1)
    grep -q "succeeded" <<<"$out" || { log "h2load failed: $out"; exit 1; }
    failed=$(awk '/^requests:/ { print $10 }' <<<"$out")
    [[ $failed == 0 ]] || log "[${LABELS[$index]}] $failed requests failed"
    record "$index" "$(awk '/^finished in/ { print $4 }' <<<"$out")" "$(p99_of_log "$WORK/h2load.log")"
}

print_rows() { # FIRST-COLUMN-HEADING
    local index rps p99
    echo "| $1 | requests/s | p99 ms |"
    echo "|---|---:|---:|"
    for index in "${!LABELS[@]}"; do
        eval "rps=(\"\${ROW_RPS_${index}[@]}\"); p99=(\"\${ROW_P99_${index}[@]}\")"
        echo "| ${LABELS[$index]} | $(median "${rps[@]}") | $(median "${p99[@]}") |"
        eval "ROW_MEDIAN_$index=$(median "${rps[@]}")"
    done
}
