#!/usr/bin/env bash
# A short libFuzzer run of every target (Fuzz/Targets/, ~10 s each, 90 s in all): the seed
# corpus plus whatever the runs find must not crash, hang or leak. Long runs: scripts/fuzz.sh
# TARGET SECONDS (docs/decisions/fuzzing.md). Exits non-zero on the first failing target.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SMOKE_SECONDS:-10}
for source in Fuzz/Targets/*.swift; do
    target=$(basename "$source" .swift)
    log=$(mktemp)
    if bash scripts/fuzz.sh "$target" "$seconds" >"$log" 2>&1; then
        echo "fuzz-smoke: $target ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions)"
        rm -f "$log"
    else
        tail -40 "$log" >&2
        echo "fuzz-smoke: $target FAILED (input in .build-fuzz/crashes/$target/)" >&2
        rm -f "$log"
        exit 1
    fi
done
