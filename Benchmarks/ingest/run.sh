#!/usr/bin/env bash
# SPEC §18 figures, one run, side by side (not a test):
#  A. durable batches/s and RSS of an ingest-only replica (shipping to RGW) beside today's full
#     modeld, interleaved runs of the same wrk load (Benchmarks/events/events.lua);
#  B. evaluator CPU per million shipped events: the origin's guard reading N events from the
#     bucket (GET + inflate + copy + tail) beside the same events as local segments;
#  C. event-to-decision lag: a batch posted every few seconds to an ingest replica; lag = when
#     the origin's guard state first shows that replica's newest event read ≥ the post time.
#     With ROTATION=60 GUARD_INTERVAL=60 (the defaults) a run takes LAG_SECONDS (default 600);
#     SCALE=10 divides rotation, interval and duration by 10 (what docs/deploy.md reports, said so).
# Env: SKIP_BUILD=1 (reuse .build/release), BIN_DIR, RUNS (2), DURATION (10 s per wrk run), CONNECTIONS (32),
#      EVENTS (10 per batch), SHIPPED_EVENTS (1000000), ROTATION, GUARD_INTERVAL, LAG_SECONDS, SCALE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-2} DURATION=${DURATION:-10} CONNECTIONS=${CONNECTIONS:-32} EVENTS=${EVENTS:-10}
SHIPPED_EVENTS=${SHIPPED_EVENTS:-1000000} SCALE=${SCALE:-1}
ROTATION=${ROTATION:-$((60 / SCALE))} GUARD_INTERVAL=${GUARD_INTERVAL:-$((60 / SCALE))} LAG_SECONDS=${LAG_SECONDS:-$((600 / SCALE))}
command -v wrk >/dev/null || { echo "wrk not installed" >&2; exit 1; }
# BIN_DIR: other binaries (e.g. .build/debug to try the script itself; figures only from release).
if [[ -z "${BIN_DIR:-}" ]]; then
  [[ -n "${SKIP_BUILD:-}" ]] || (cd "$repo" && swift build -c release --product modeld 2>&1 | tail -1 && swift build -c release --product modelctl 2>&1 | tail -1)
fi
bin=${BIN_DIR:-$(cd "$repo" && swift build -c release --show-bin-path)}
# MODELCTL: another modelctl (it only publishes and ships here, never timed).
modeld=$bin/modeld modelctl=${MODELCTL:-$bin/modelctl}
work=$(mktemp -d /tmp/modeld-bench-ingest.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  bash "$repo/scripts/rgw.sh" stop "$work/rgw" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
source "$repo/scripts/lib/modeld-port.sh"
RGW_OWNER_PID=$$ bash "$repo/scripts/rgw.sh" start "$work/rgw" bench >/dev/null
source "$work/rgw/env"; export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
echo '{}' > "$work/modeld.json"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; release binaries $bin"

# start NAME ENV... -- ARGS...: a modeld in $work/NAME; sets $port and $pid.
start() {
  local name=$1; shift; local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done; shift
  mkdir -p "$work/$name"
  env "${env[@]}" MODELD_INSTANCE_ID="$name" MODELD_ACCESS_LOG=off "$modeld" --config "$work/modeld.json" \
    --listen 127.0.0.1:0 --data-dir "$work/$name/data" "$@" > "$work/$name.log" 2>&1 &
  pid=$!; PIDS+=("$pid")
  port=$(modeld_port "$work/$name.log" "$pid" bench)
}
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
hwm_mib() { awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
rss_mib() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
metric() { curl -fsS "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
ship_env=(MODELD_EVENTS_SHIP_TO=s3://bench/a MODELD_EVENTS_SHIP_ENDPOINT="$RGW_ENDPOINT" MODELD_EVENTS_SEGMENT_MAX_SECONDS=10)

# --- A. throughput and RSS ------------------------------------------------------------------
event='{"name":"upsell","ts":"2026-12-01T10:00:00Z","model_id":"8d26dce3-a67c-4ab7-b68c-01a5318972ab","outcome":"purchased"}'
{ printf '{"batch_id":"@ID@","client_id":"bench-client","events":['
  for ((i = 0; i < EVENTS; i++)); do ((i)) && printf ','; printf '%s' "$event"; done; printf ']}'; } > "$work/template.json"
mkdir -p "$work/models"
start full -- --models-dir "$work/models" --public-base-url http://bench.test; full_pid=$pid full_port=$port
start ingest MODELD_INGEST_ONLY=true "${ship_env[@]}" --; ingest_pid=$pid ingest_port=$port
echo "A. $EVENTS events per batch, $CONNECTIONS connections, ${DURATION}s per run, interleaved; idle RSS: full $(rss_mib $full_pid) MiB, ingest $(rss_mib $ingest_pid) MiB"
for ((r = 1; r <= RUNS; r++)); do
  for which in full ingest; do
    p_var=${which}_port; p=${!p_var}; id_var=${which}_pid
    b0=$(metric "$p" modeld_event_batches_total)
    out=$(BODY_TEMPLATE="$work/template.json" EVENTS_PATH=/events wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s \
      -s "$repo/Benchmarks/events/events.lua" "http://127.0.0.1:$p" 2>&1)
    b1=$(metric "$p" modeld_event_batches_total)
    secs=$(grep '^WRK ' <<<"$out" | sed -E 's/.*seconds=([0-9.]+).*/\1/')
    awk -v w="$which" -v b="$((b1 - b0))" -v s="$secs" -v h="$(hwm_mib "${!id_var}")" 'BEGIN { printf "   %-7s run %d: %.0f durable batches/s, peak RSS %s MiB\n", w, '"$r"', b / s, h }'
  done
done
echo "   ingest shipped $(metric "$ingest_port" modeld_events_segments_shipped_total) segment(s) meanwhile, $(metric "$ingest_port" modeld_events_ship_failures_total) failed pass(es)"
kill -TERM "$full_pid" "$ingest_pid"; wait "$full_pid" "$ingest_pid" || true

# --- the guarded catalog for B and C: a challenger that never has enough clients to decide ----
ctl() { "$modelctl" "$@"; }
head -c 4096 /dev/urandom > "$work/model.bin"
mkdir -p "$work/catalog"
baseline=$(ctl publish "$work/model.bin" --sdk-min 1.0 --models-dir "$work/catalog" --public-base-url http://bench.test --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
release=$(ctl publish "$work/model.bin" --sdk-min 1.0 --models-dir "$work/catalog" --public-base-url http://bench.test --json \
  --guard '{"metric":{"name":"upsell_prompt","outcome":"purchased"},"stages":[50],"min_clients_per_arm":1000000000}')
challenger=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$release")
started_at=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["guard"]["started_at"])' "$release")

# --- B. evaluator CPU per million shipped events ----------------------------------------------
clients=$((SHIPPED_EVENTS / 4))
mkdir -p "$work/gen/data/events"
python3 "$repo/Benchmarks/guard/gen_segments.py" "$work/gen/data/events/${started_at:0:10}" "$challenger" "$baseline" "$clients" 4 "$started_at" > /dev/null
ctl events ship --data-dir "$work/gen/data" --to s3://bench/b --endpoint "$RGW_ENDPOINT" > /dev/null
newest=$started_at
# wait_read DATA: until the guard state's events_read["gen"] is the generated events' time.
wait_read() {
  for _ in $(seq 1 6000); do
    python3 - "$1/guard-state/$challenger.json" "$newest" 2>/dev/null <<'PY' && return 0
import json, sys
sys.exit(0 if json.load(open(sys.argv[1])).get("events_read", {}).get("gen") == sys.argv[2] else 1)
PY
    sleep 0.1
  done
  echo "guard never read the events" >&2; exit 1
}
for source in bucket local; do
  cp -r "$work/catalog" "$work/models-$source"
  if [[ $source == local ]]; then mkdir -p "$work/origin-$source/data"; cp -r "$work/gen/data/events" "$work/origin-$source/data/events"; fi
  extra=(); [[ $source == bucket ]] && extra=(MODELD_GUARD_EVENTS_FROM=s3://bench/b MODELD_GUARD_EVENTS_ENDPOINT="$RGW_ENDPOINT")
  # The interval is long: the first evaluation (at start) reads everything, the next is far off.
  start "origin-$source" MODELD_GUARD_INTERVAL_SECONDS=3600 "${extra[@]}" -- --models-dir "$work/models-$source" --public-base-url http://bench.test
  wait_read "$work/origin-$source/data"
  eval "cpu_$source=$(cpu_s "$pid")"
  kill -TERM "$pid"; wait "$pid" || true
done
awk -v n="$SHIPPED_EVENTS" -v b="$cpu_bucket" -v l="$cpu_local" 'BEGIN {
  printf "B. %d events (%d clients x 4): origin CPU to start and read them all: from the bucket %.2f s (%.2f s per million), as local segments %.2f s (%.2f s per million)\n", n, n / 4, b, b * 1e6 / n, l, l * 1e6 / n }'

# --- C. event-to-decision lag ---------------------------------------------------------------
start lag-ingest MODELD_INGEST_ONLY=true MODELD_EVENTS_SHIP_TO=s3://bench/c MODELD_EVENTS_SHIP_ENDPOINT="$RGW_ENDPOINT" \
  MODELD_EVENTS_SEGMENT_MAX_SECONDS="$ROTATION" --; lag_port=$port
cp -r "$work/catalog" "$work/models-lag"
start lag-origin MODELD_GUARD_INTERVAL_SECONDS="$GUARD_INTERVAL" MODELD_GUARD_EVENTS_FROM=s3://bench/c MODELD_GUARD_EVENTS_ENDPOINT="$RGW_ENDPOINT" -- \
  --models-dir "$work/models-lag" --public-base-url http://bench.test
echo "C. rotation ${ROTATION}s, guard interval ${GUARD_INTERVAL}s, ${LAG_SECONDS}s of one batch every $(awk -v r="$ROTATION" 'BEGIN{printf "%.1f", r / 7}')s"
python3 - "$lag_port" "$work/lag-origin/data/guard-state/$challenger.json" "$LAG_SECONDS" "$ROTATION" <<'PY'
import json, sys, threading, time, urllib.request
from datetime import datetime
port, state, seconds, rotation = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
sent, lags, done = [], [], threading.Event()
def post():
    n, end = 0, time.time() + seconds
    while time.time() < end:
        body = json.dumps({"batch_id": f"l{n}", "client_id": f"lag-{n}", "events": [{"name": "upsell_prompt", "ts": "2026-12-01T10:00:00Z", "outcome": "dismissed"}]}).encode()
        t = time.time()
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/events?sdk=1.0", body, {"Content-Type": "application/json"})).read()
        sent.append(t); n += 1
        time.sleep(rotation / 7)
    done.set()
threading.Thread(target=post, daemon=True).start()
pending = 0
deadline = time.time() + seconds + 4 * rotation + 120
while time.time() < deadline:
    try:
        read = json.load(open(state)).get("events_read", {}).get("lag-ingest")
    except (OSError, ValueError):
        read = None
    if read:
        t = datetime.fromisoformat(read.replace("Z", "+00:00")).timestamp()
        now = time.time()
        while pending < len(sent) and sent[pending] <= t:
            lags.append(now - sent[pending]); pending += 1
    if done.is_set() and pending == len(sent):
        break
    time.sleep(0.1)
lags.sort()
if not lags:
    sys.exit("no event was ever read")
q = lambda p: lags[min(len(lags) - 1, int(p * len(lags)))]
print(f"   {len(lags)} of {len(sent)} batches read; event → read by the guard (the evaluation that decides): median {q(0.5):.1f} s, p90 {q(0.9):.1f} s, max {lags[-1]:.1f} s")
PY
