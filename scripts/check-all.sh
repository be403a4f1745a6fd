#!/usr/bin/env bash
# Script checks that run after `swift test` (each script under scripts/checks/ exits non-zero on failure).
set -euo pipefail
cd "$(dirname "$0")/.."
pass=0; fail=0
for c in scripts/checks/*.sh; do
  [ -e "$c" ] || continue
  echo "== $c"
  if bash "$c"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $c"; fi
done
echo "scripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
