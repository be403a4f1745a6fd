#!/usr/bin/env bash
# The console at 10,000 releases (issue 36, SPEC §17.1 target: first paint ≤ 500 ms): the
# releases view — default, filtered, a later page — in headless Chromium (Debian's chromium, as
# the console check) with RELEASES releases beside one release, alternating in the same rounds.
# The catalog is written directly (Tests/Browser/big_catalog.py); see console_scale.py.
# Uses the newer of .build/release and .build/debug (BUILD=release or BUILD=debug to choose);
# figures are indicative on a shared machine.
#   BUILD=release RELEASES=10000 ROUNDS=5 bash Benchmarks/console-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BUILD:+.build/$BUILD}
for dir in .build/release .build/debug; do
  [ -z "${BUILD:-}" ] && [ -x "$dir/modeld" ] || continue
  if [ -z "$BIN" ] || [ "$dir/modeld" -nt "$BIN/modeld" ]; then BIN=$dir; fi
done
[ -n "$BIN" ] && [ -x "$BIN/modeld" ] || { echo "build modeld first (swift build -c release)" >&2; exit 1; }
echo "binary: $BIN/modeld"
exec python3 Benchmarks/console_scale.py "$BIN/modeld" "${RELEASES:-10000}" "${ROUNDS:-5}"
