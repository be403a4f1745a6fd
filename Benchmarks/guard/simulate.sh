#!/usr/bin/env bash
# The fleet simulator's acceptance figures (SPEC §11.6, issue #27 item 4). Not a test: prints
# figures, which need a quiet machine for the timing. Release `modelctl` unless BIN= names a
# directory holding one. Every simulation is seeded: the counts repeat exactly.
#  (1) --effect 0, default plan, 4-hour polls, RUNS runs: no run raises srm; paused ≤ α + 0.03.
#      At AA_CLIENTS, where the default plan (1,000 clients per arm) can ramp past its first
#      stage (at the SPEC's default fleet of 100,000 most runs end no_data: docs/guardrails.md);
#      then v4's SRM test (settle_seconds 0) for comparison, V4_RUNS runs.
#  (2) an effect worse than 2 × margin + 0.02 (margin 0: −0.025 on a 0.10 rate), RUNS runs:
#      paused in ≥ 95 %, never promoted.
#  (3) 1,000,000 clients × 14 days on one core (taskset -c 0): wall and CPU time (target ≤ 60 s;
#      on a busy machine the CPU time is the figure) and peak RSS; bytes per client = (peak RSS − peak RSS of a 1,000-client run) ÷ clients. The plan is
#      the default with goal prove, so no run ends before day 14.
#  (4) p50/p90 hours to 100 % at 1-, 4- and 24-hour polls (RAMP_RUNS runs each, AA_CLIENTS).
#
#   Benchmarks/guard/simulate.sh                  RUNS=200 RAMP_RUNS=50 AA_CLIENTS=150000
#   BIN=.build/debug RUNS=4 RAMP_RUNS=2 AA_CLIENTS=20000 BIG_CLIENTS=20000 Benchmarks/guard/simulate.sh   # smoke
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
RUNS=${RUNS:-200} RAMP_RUNS=${RAMP_RUNS:-50} V4_RUNS=${V4_RUNS:-20} AA_CLIENTS=${AA_CLIENTS:-150000} BIG_CLIENTS=${BIG_CLIENTS:-1000000}
if [[ -z "${BIN:-}" ]]; then
  (cd "$repo" && swift build -c release --product modelctl >&2)
  BIN=$(cd "$repo" && swift build -c release --show-bin-path)
fi
[[ -x $BIN/modelctl ]] || { echo "simulate.sh: no modelctl in $BIN" >&2; exit 1; }

plan='{"metric":{"name":"upsell_prompt","outcome":"purchased"}}'
v4='{"metric":{"name":"upsell_prompt","outcome":"purchased"},"settle_seconds":0}'
prove='{"metric":{"name":"upsell_prompt","outcome":"purchased"},"goal":"prove"}'
sim() { "$BIN/modelctl" experiment simulate --json "$@"; }
# One line of figures from a --json answer.
figures() {
  python3 -c '
import json, sys
d = json.load(sys.stdin); o = d["outcomes"]; n = d["runs"]; h = d["hours_to_full"]
print("runs %d: promoted %d, paused %d (%.1f %%), srm %d, inconclusive %d, no_data %d, running %d; runs with an srm decision %d; hours to 100 %%: p50 %s, p90 %s"
      % (n, o["promoted"], o["paused"], 100.0 * o["paused"] / n, o["srm"], o["inconclusive"], o["no_data"], o["running"],
         d["srm_decisions"], h["p50"], h["p90"]))'
}

echo "(1) effect 0, 4-hour polls, $RUNS runs"
echo "  default plan, $AA_CLIENTS clients: $(sim --plan "$plan" --clients "$AA_CLIENTS" --control-rate 0.1 --effect 0 --runs "$RUNS" --seed 1000 | figures)"
echo "  settle_seconds 0 (v4's SRM test), $AA_CLIENTS clients: $(sim --plan "$v4" --clients "$AA_CLIENTS" --control-rate 0.1 --effect 0 --runs "$V4_RUNS" --seed 1000 | figures)"
echo "(2) effect -0.025 on 0.10 (margin 0), default plan, 4-hour polls, $RUNS runs"
echo "  $AA_CLIENTS clients: $(sim --plan "$plan" --clients "$AA_CLIENTS" --control-rate 0.1 --effect=-0.025 --runs "$RUNS" --seed 2000 | figures)"

echo "(3) $BIG_CLIENTS clients x 14 days, one core"
measure() { # clients → "wall_seconds cpu_seconds peak_rss_kib"
  local out; out=$(mktemp)
  /usr/bin/time -f "%e %U+%S %M" -o "$out" taskset -c 0 "$BIN/modelctl" experiment simulate --plan "$prove" \
    --clients "$1" --days 14 --control-rate 0.1 --json >/dev/null
  cat "$out"; rm -f "$out"
}
read -r _ _ small_kib < <(measure 1000)
read -r big_s big_cpu_sum big_kib < <(measure "$BIG_CLIENTS")
python3 -c "print('  wall %.1f s, CPU %.1f s (target <= 60), peak RSS %.1f MiB, %.1f bytes per client beyond a 1,000-client run (%.1f MiB)'
      % ($big_s, $big_cpu_sum, $big_kib / 1024, ($big_kib - $small_kib) * 1024 / $BIG_CLIENTS, $small_kib / 1024))"

echo "(4) hours to 100 %, effect 0, default plan, $AA_CLIENTS clients, $RAMP_RUNS runs each"
for hours in 1 4 24; do
  echo "  polls every $hours h: $(sim --plan "$plan" --clients "$AA_CLIENTS" --poll-hours "$hours" --control-rate 0.1 --runs "$RAMP_RUNS" --seed 3000 | figures)"
done
