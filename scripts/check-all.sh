#!/usr/bin/env bash
# Script checks that run after the Swift tests (each script under scripts/checks/ exits non-zero
# on failure). CHECK_JOBS of them run at once (default 3: most wait on pip, a browser or a
# server); the longest start first. A check's output is printed when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# one CHECK: runs it with its output in a log; a line with its result and time.
one() {
  local check=$1 started=$SECONDS
  local log="$logs/$(basename "$check").log"
  if bash "$check" >"$log" 2>&1; then
    printf '== %-40s passed in %ds\n' "$check" $((SECONDS - started))
  else
    printf '== %-40s FAILED in %ds\n' "$check" $((SECONDS - started))
    touch "$log.failed"
  fi
}
export -f one
export logs

longest=(scripts/checks/fuzz-smoke.sh scripts/checks/schemathesis.sh scripts/checks/console.sh)
checks=("${longest[@]}")
for c in scripts/checks/*.sh; do [[ " ${longest[*]} " == *" $c "* ]] || checks+=("$c"); done
printf '%s\n' "${checks[@]}" | xargs -d '\n' -P "${CHECK_JOBS:-3}" -I{} bash -c 'one "$1"' _ {}

fail=0
for c in "${checks[@]}"; do
  log="$logs/$(basename "$c").log"
  [ -f "$log.failed" ] || continue
  fail=$((fail + 1))
  echo "==== output of $c"
  cat "$log"
done
echo "scripts: $((${#checks[@]} - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
