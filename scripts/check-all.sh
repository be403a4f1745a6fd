#!/usr/bin/env bash
# Script checks (each script under scripts/checks/ exits non-zero on failure). CHECK_JOBS of them
# run at once (default 3: most wait on pip, a browser or a server); the longest start first. A
# check's output is printed when it fails.
#
#   scripts/check-all.sh                    the checks
#   scripts/check-all.sh --beside CMD...    CMD (the Swift build and suites) first, with fuzz-smoke
#                                           running beside it at SCHED_IDLE, then the rest
#
# Why fuzz-smoke beside: the suites keep two cores only 66 % busy (they wait on children and
# disk), and fuzz-smoke is CPU work alone (compiles, then libFuzzer in memory) with no wall-clock
# assertion; at SCHED_IDLE it takes the idle third and yields to the suites. Not nice 19: modeld's
# guard evaluator and pack deriver run at SCHED_IDLE, which even nice 19 outranks, so the suites
# that wait for them (a guard's pause, a derived pack) starved behind fuzz-smoke's compile. Schemathesis is not:
# its server fsyncs events, and beside the suites it slowed them by minutes and hit its own
# 480 s cap. The console's Playwright waits are timed, so it runs after.
# Decisions and figures: docs/decisions/testing.md.
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

# run CHECKS...: CHECK_JOBS of them at once.
run() { printf '%s\n' "$@" | xargs -d '\n' -P "${CHECK_JOBS:-3}" -I{} bash -c 'one "$1"' _ {}; }

untimed=(scripts/checks/fuzz-smoke.sh)
longest=("${untimed[@]}" scripts/checks/schemathesis.sh scripts/checks/console.sh)
checks=("${longest[@]}")
for c in scripts/checks/*.sh; do [[ " ${longest[*]} " == *" $c "* ]] || checks+=("$c"); done

suites=0
if [ "${1:-}" = --beside ]; then
  shift
  # SCHED_IDLE (nice 19 where chrt cannot) for the subshell and every process it starts
  (chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 || renice -n 19 -p "$BASHPID" >/dev/null; run "${untimed[@]}") &
  beside=$!
  "$@" || suites=$?
  run "${checks[@]:${#untimed[@]}}"
  wait "$beside"
else
  run "${checks[@]}"
fi

fail=0
for c in "${checks[@]}"; do
  log="$logs/$(basename "$c").log"
  [ -f "$log.failed" ] || continue
  fail=$((fail + 1))
  echo "==== output of $c"
  cat "$log"
done
echo "scripts: $((${#checks[@]} - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$suites" -eq 0 ]
