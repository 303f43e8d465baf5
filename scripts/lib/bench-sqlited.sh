# Shared by scripts/bench-group-commit.sh, scripts/bench-idempotency.sh and scripts/bench-transactions.sh (sourced,
# not run). Before sourcing, define ROOT, WORK and log; afterwards SQLITED names the sqlited binary to measure (from
# BENCH_BIN_DIR, or a release build unless BENCH_NO_SWIFT_BUILD=1), and scripts/lib/bench-helpers.sh's functions
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

source "$ROOT/scripts/lib/bench-helpers.sh"
