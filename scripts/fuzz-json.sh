#!/usr/bin/env bash
# Fuzzes the JSON request decoder (parser + statement-object validation) with libFuzzer for SECONDS (default 60).
# Crashes (property violations trap) are copied into Tests/SQLiteServiceTests/Security/Regressions/, where
# JSONRequestRegressionTests replays them on every test run.
set -euo pipefail
# The Swift runtime's crash backtracer would run under ASan after a trap and only add noise.
export SWIFT_BACKTRACE=enable=no

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$root/Fuzz/JSONRequestFuzz"
artifacts="$fuzz/.artifacts"
work_corpus="$fuzz/.corpus"
regressions="$root/Tests/SQLiteServiceTests/Security/Regressions"
mkdir -p "$artifacts" "$work_corpus" "$regressions"

cd "$fuzz"
# SwiftPM caches the build description of this package and does not notice files added to the root package it
# depends on by path; dropping the cache makes every run build the current sources.
rm -f .build/debug.yaml .build/debug/description.json
# ld.gold warns about every ASan helper symbol; that noise is filtered out of the log shown.
build_log="$artifacts/build.log"
if ! swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$build_log" 2>&1; then
    grep -v "Cannot export local symbol" "$build_log" >&2 || true
    echo "fuzz target build failed" >&2
    exit 1
fi
binary="$(swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)/JSONRequestFuzz"

status=0
"$binary" "$work_corpus" "$fuzz/corpus" \
    -dict="$fuzz/json.dict" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" || status=$?

found=0
for artifact in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$artifact" ] || continue
    # Prefixed: the repository ignores crash-*/oom-*/timeout-* files, but these must be committed.
    name="fuzz-$(basename "$artifact")"
    mv "$artifact" "$regressions/$name"
    echo "regression input saved: Tests/SQLiteServiceTests/Security/Regressions/$name (commit it)"
    found=1
done
if [ "$found" = 1 ] || [ "$status" != 0 ]; then
    echo "fuzzing found a problem (exit status $status)" >&2
    exit 1
fi
echo "no problem found in ${seconds}s"
