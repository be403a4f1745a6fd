#!/usr/bin/env bash
# Console measurements (issue 23): page weight (bytes, requests) and time to first render of
# each view in headless Chromium with RELEASES releases in the catalog, and /latest throughput
# (wrk -t1 -c16) with and without a console open and refreshing, alternating in the same run.
# Uses the newer of .build/release and .build/debug; a short run: figures are indicative only
# on a shared machine.
#   RELEASES=500 WRK_SECONDS=8 ROUNDS=3 bash Benchmarks/console.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=
for dir in .build/release .build/debug; do
  [ -x "$dir/modeld" ] || continue
  if [ -z "$BIN" ] || [ "$dir/modeld" -nt "$BIN/modeld" ]; then BIN=$dir; fi
done
[ -n "$BIN" ] || { echo "build modeld first (swift build -c release)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
echo "binary: $BIN/modeld"
exec python3 Benchmarks/console_measure.py "$BIN/modeld" "$BIN/modelctl" "${RELEASES:-500}" "${WRK_SECONDS:-8}" "${ROUNDS:-3}"
