#!/usr/bin/env bash
# Runs the Swift test suites (built already: `swift build --build-tests`) in several processes at
# once, then the timing-sensitive suites alone. Why not one `swift test`: Swift Testing runs a
# process's tests on the concurrency pool, which is as wide as the machine has cores, and most of
# our tests block on real children (servers, curl, modelctl) — so one process kept at most two
# tests going and the cores half idle. Decisions and figures: docs/decisions/testing.md.
#
#   TEST_JOBS   processes at once (default 5)
#   TEST_FILTER only suites whose "Target.Suite" name matches this extended regex
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${TEST_JOBS:-5}
binary="$(swift build --show-bin-path)/modeldPackageTests.xctest"
[ -x "$binary" ] || { echo "test-swift: $binary is not built (swift build --build-tests)" >&2; exit 2; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
export NO_COLOR=1

# Suites that assert a bound in wall-clock time (a cancellation that stops within 1 s, a guard
# that acts within its intervals, a token revoked on every replica within 2 s, packs derived by
# modeld's SCHED_IDLE worker, which a saturated machine starves): on a loaded machine the bound
# measures the load, so they run after the rest, each with its tests in sequence. They mostly
# wait, so the few of them run at once.
timed='^IntegrationTests\.(ClientTransportTests|ClientStallKillTests|ClientProgressTests|GuardEvaluatorTests|NamedTokensTests|TransferPublishTests|CostTransferLogTests)$'
# The longest suites start first, so they do not finish alone at the end (seconds in
# docs/decisions/testing.md). Every RGW suite shares one Ceph cluster per process: one group.
# Each is an extended regex over "Target.Suite" names.
first=('IntegrationTests\.CatalogLargeFileTests' 'ObjectStorageRGWTests\..*' 'IntegrationTests\.EventsCrashLoopTests'
       'IntegrationTests\.ClientKillTests' 'GuardSimulationTests\.FleetSimulationTests' 'GuardrailsTests\.GuardSimulationTests' 'HTTPServerTests\.ServerSuites' 'IntegrationTests\.ClientCacheTests'
       'IntegrationTests\.ClientCLITests' 'IntegrationTests\.GuardRecomputationTests')

suites=$(swift test list --skip-build 2>/dev/null | sed 's#/.*##' | sort -u | grep -E "${TEST_FILTER:-.}" || true)
[ -n "$suites" ] || { echo "test-swift: no suite matches '${TEST_FILTER:-}'" >&2; exit 2; }
parallel=() serial=()
for pattern in "${first[@]}"; do
  grep -qE "^${pattern}$" <<<"$suites" && parallel+=("$pattern")
done
while read -r suite; do
  [[ $suite =~ $timed ]] && { serial+=("${suite//./\\.}"); continue; }
  covered=false
  for pattern in "${parallel[@]}"; do [[ $suite =~ ^$pattern$ ]] && covered=true; done
  $covered || parallel+=("${suite//./\\.}")
done <<<"$suites"

# run GROUP [FLAGS...]: one test process for the suites GROUP matches; a line with its result.
run() {
  local group=$1; shift
  local log="$logs/$(tr -c 'A-Za-z0-9' _ <<<"$group").log" started=$SECONDS status=0 user sys cpu
  # CPU seconds of the process and the children it waited for (servers, curl, modelctl): what the
  # group costs whatever else runs beside it
  { TIMEFORMAT='%0U %0S'; time "$binary" --testing-library swift-testing --filter "^($group)/" "$@" >"$log" 2>&1 || status=$?; } 2>"$log.cpu"
  read -r user sys <"$log.cpu"; cpu=$((user + sys))
  local summary; summary=$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -1 | sed 's/^[^T]*//')
  printf '%4ds %4d cpu  %-52s %s\n' $((SECONDS - started)) "$cpu" "${group//\\/}" "${summary:-exit $status, no summary}"
  [ "$status" -eq 0 ] || echo "$group" >>"$logs/failed"
}
export -f run
export binary logs

started=$SECONDS
printf '%s\n' "${parallel[@]}" | xargs -d '\n' -P "$jobs" -I{} bash -c 'run "$1"' _ {}
[ "${#serial[@]}" -eq 0 ] || printf '%s\n' "${serial[@]}" | xargs -d '\n' -P "${#serial[@]}" -I{} bash -c 'run "$1" --no-parallel' _ {}

# Every failed group's log in full; then the totals.
if [ -f "$logs/failed" ]; then
  while read -r group; do
    echo "==== ${group//\\/} ===="
    cat "$logs/$(tr -c 'A-Za-z0-9' _ <<<"$group").log"
  done <"$logs/failed"
fi
# A test's result line (not a test case's, nor the run's); a process that died without one counts
# as one failed test.
passed=$(cat "$logs"/*.log | grep -cE '^✔ Test (\S+\(|[^cr])' || true)
failed=$(cat "$logs"/*.log | grep -cE '^✘ Test (\S+\(|[^cr]).* failed after' || true)
for log in "$logs"/*.log; do grep -qE 'Test run with [0-9]+ tests?' "$log" || failed=$((failed + 1)); done
echo "test-swift: $((SECONDS - started)) s with $jobs processes, $(cat "$logs"/*.log.cpu | awk '{ s += $1 + $2 } END { print s }') s of CPU"
echo "$passed passed, $failed failed"
[ ! -f "$logs/failed" ]
