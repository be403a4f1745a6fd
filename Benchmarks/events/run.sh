#!/usr/bin/env bash
# Events ingestion benchmark (SPEC §4.2, §5): durable events/s, latency and batches per commit
# for POST /events and POST /latest?sdk=2.3, plus Foundation JSONSerialization's parse-only rate
# on the same bodies as a yardstick. Not a test.
#
#   Benchmarks/events/run.sh            # RUNS=1 DURATION=10 CONNECTIONS=64 THREADS=2 ACCESS_LOG=on
# Env: RUNS, DURATION (s), CONNECTIONS, THREADS (wrk), EVENTS (per batch), ACCESS_LOG (on|off),
#      SCRATCH (SwiftPM scratch path, default .build), SKIP_BUILD=1 to reuse the release binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-1} DURATION=${DURATION:-10} CONNECTIONS=${CONNECTIONS:-64} THREADS=${THREADS:-2}
EVENTS=${EVENTS:-50} ACCESS_LOG=${ACCESS_LOG:-on} SCRATCH=${SCRATCH:-$repo/.build}

command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 1; }
if [[ -z "${SKIP_BUILD:-}" ]]; then
  (cd "$repo" && swift build -c release --product modeld --scratch-path "$SCRATCH" 2>&1 | tail -3)
fi
bin="$(cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/modeld"
[[ -x "$bin" ]] || { echo "no release modeld at $bin" >&2; exit 1; }

work=$(mktemp -d /tmp/modeld-bench-events.XXXXXX)
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# One batch of $EVENTS events; @ID@ is replaced per request (wrk) / per body (yardstick).
event='{"name":"upsell_prompt","ts":"2026-11-21T10:00:00Z","model_id":"8d26dce3-a67c-4ab7-b68c-01a5318972ab","outcome":"purchased","value":1.0,"props":{"battery":0.8,"charging":true,"screen":"paywall_v2"}}'
{
  printf '{"batch_id":"@ID@","client_id":"bench-client","events":['
  for ((i = 0; i < EVENTS; i++)); do ((i)) && printf ','; printf '%s' "$event"; done
  printf ']}'
} > "$work/template.json"
echo "body: $(wc -c < "$work/template.json") bytes, $EVENTS events; $CONNECTIONS connections, $THREADS wrk threads, ${DURATION}s; access log $ACCESS_LOG"

start_server() {
  cp -r "$repo/models" "$work/models"
  local log_setting=()
  [[ "$ACCESS_LOG" == off ]] && log_setting=(MODELD_ACCESS_LOG=off)
  (cd "$work" && exec env "${log_setting[@]}" MODELD_INSTANCE_ID=bench MODELD_ADMIN_TOKEN=bench-token-0123456789 \
    "$bin" --config "$repo/config/modeld.json" --listen 127.0.0.1:0 --models-dir "$work/models" \
    --data-dir "$work/data" --public-base-url http://bench.test > "$work/modeld.log" 2>&1) &
  pid=$!
  for _ in $(seq 1 200); do
    port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$work/modeld.log" | grep -oE '[0-9]+$' || true)
    [[ -n "$port" ]] && return 0
    sleep 0.05
  done
  echo "modeld did not start:" >&2; cat "$work/modeld.log" >&2; exit 1
}

metric() { curl -fsS "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

run_once() {  # $1 = path
  local a0 b0 c0 a1 b1 c1 out
  a0=$(metric 'modeld_events_total{result="accepted"}'); b0=$(metric modeld_event_batches_total); c0=$(metric modeld_event_commits_total)
  out=$(BODY_TEMPLATE="$work/template.json" EVENTS_PATH="$1" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s \
    -s "$here/events.lua" "http://127.0.0.1:$port" 2>&1)
  a1=$(metric 'modeld_events_total{result="accepted"}'); b1=$(metric modeld_event_batches_total); c1=$(metric modeld_event_commits_total)
  local line; line=$(grep '^WRK ' <<<"$out") || { echo "$out" >&2; exit 1; }
  local secs p50 p99 non2xx errs
  secs=$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$line"); p50=$(sed -E 's/.*p50_ms=([0-9.]+).*/\1/' <<<"$line")
  p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$line"); non2xx=$(sed -E 's/.*non2xx=([0-9]+).*/\1/' <<<"$line")
  errs=$(sed -E 's/.*socket_errors=([0-9]+).*/\1/' <<<"$line")
  awk -v p="$1" -v a="$((a1 - a0))" -v b="$((b1 - b0))" -v c="$((c1 - c0))" -v s="$secs" -v p50="$p50" -v p99="$p99" \
      -v n="$non2xx" -v e="$errs" 'BEGIN {
    printf "%-18s durable_events_per_s=%.0f batches_per_s=%.0f p50_ms=%s p99_ms=%s batches_per_commit=%.1f commits=%d non2xx=%d socket_errors=%d\n",
      p, a / s, b / s, p50, p99, (c > 0 ? b / c : 0), c, n, e }'
}

start_server
echo "modeld $bin on port $port (pid $pid)"
for ((r = 1; r <= RUNS; r++)); do
  run_once /events
  run_once '/latest?sdk=2.3'
done
echo "segments: $(du -sh "$work/data/events" | cut -f1) in $(find "$work/data/events" -name '*.jsonl' | wc -l) file(s)"

# Yardstick: JSONSerialization parse-only, same bodies, optimised build in the temp dir.
if command -v swiftc >/dev/null; then
  swiftc -O "$here/parse_yardstick.swift" -o "$work/yardstick" 2>&1 | tail -3
  "$work/yardstick" "$work/template.json" 20000 "$EVENTS"
fi
