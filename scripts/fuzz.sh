#!/usr/bin/env bash
# Runs one of the project's libFuzzer targets for SECONDS (default 60):
#   scripts/fuzz.sh http [SECONDS]   the HTTP request parser, whole and split (Fuzz/HTTPParserFuzz)
#   scripts/fuzz.sh h2 [SECONDS]     the HTTP/2 server session, alone and after the preface, whole and split
#                                    (Fuzz/HTTP2Fuzz)
#   scripts/fuzz.sh json [SECONDS]   the JSON request decoder and statement-object validation (Fuzz/JSONRequestFuzz)
# Every finding (crash, trap on a violated property, timeout, out of memory) is moved into the target's regression
# folder, which the normal test suite replays on every run; commit it. libFuzzer's final statistics (the execution
# count) end the output.
set -euo pipefail
# The Swift runtime's crash backtracer would run under ASan after a trap and only add noise.
export SWIFT_BACKTRACE=enable=no

target="${1:-}"
seconds="${2:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$target" in
http)
    product=HTTPParserFuzz
    regressions=Tests/HTTPServerTests/Regressions
    extra=(-max_len=8192)
    ;;
h2)
    product=HTTP2Fuzz
    regressions=Tests/HTTPServerTests/HTTP2Regressions
    extra=(-max_len=8192)
    ;;
json)
    product=JSONRequestFuzz
    regressions=Tests/SQLiteServiceTests/Security/Regressions
    extra=(-dict="$root/Fuzz/JSONRequestFuzz/json.dict" -max_len=16384)
    ;;
*)
    echo "usage: scripts/fuzz.sh http|h2|json [SECONDS]" >&2
    exit 2
    ;;
esac
fuzz="$root/Fuzz/$product"
artifacts="$fuzz/.artifacts"
work_corpus="$fuzz/.corpus"
mkdir -p "$artifacts" "$work_corpus" "$root/$regressions"

cd "$fuzz"
# SwiftPM caches the build description of this package and does not notice files added to the root package it
# depends on by path; dropping the cache makes every run build the current sources.
rm -f .build/debug.yaml .build/debug/description.json
# ld.gold warns about every ASan helper symbol; that noise is filtered out of the log shown.
build_flags=(-c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
build_log="$artifacts/build.log"
if ! swift build "${build_flags[@]}" >"$build_log" 2>&1; then
    grep -v "Cannot export local symbol" "$build_log" >&2 || true
    echo "fuzz target build failed" >&2
    exit 1
fi
binary="$(swift build "${build_flags[@]}" --show-bin-path)/$product"

status=0
"$binary" "$work_corpus" "$fuzz/corpus" "${extra[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" || status=$?

found=0
for artifact in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$artifact" ] || continue
    # Prefixed: the repository ignores crash-*/oom-*/timeout-* files, but these must be committed.
    name="fuzz-$(basename "$artifact")"
    mv "$artifact" "$root/$regressions/$name"
    echo "regression input saved: $regressions/$name (commit it)"
    found=1
done
if [ "$found" = 1 ] || [ "$status" != 0 ]; then
    echo "fuzzing found a problem (exit status $status)" >&2
    exit 1
fi
echo "no problem found in ${seconds}s"
