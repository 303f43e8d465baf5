#!/bin/sh
# Instruction counts per workload and contender under valgrind's callgrind: repeatable on a loaded machine, where
# wall-clock times are not. Each figure is (instructions of the run - instructions of the setup alone) / 2, as the
# harness runs each workload twice with `1` (one warm-up, one measured run). Prints a Markdown table, in millions of
# instructions per run. Usage (after `swift build -c release`): ./callgrind.sh
set -eu
bench=.build/release/EngineBench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bench" 1 "$@" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
setup=$(count --only "no such workload")
echo "| workload | raw C | SQLiteEngine | GRDB |"
echo "|---|---:|---:|---:|"
for workload in "by index" "by name" "positional" "named" "point selects"; do
    line="| $workload |"
    for contender in "raw C" "SQLiteEngine" "GRDB"; do
        total=$(count --only "$workload" --contender "$contender")
        line="$line $(( (total - setup) / 2 / 1000000 ))M |"
    done
    echo "$line"
done
