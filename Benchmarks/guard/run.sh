#!/usr/bin/env bash
# Guarded-rollout evaluator benchmark (SPEC §11.5, issue #11 item 7). Not a test: prints figures,
# which need a quiet machine.
#  (a) tailing throughput: segments of CLIENTS clients × EVENTS_PER_CLIENT events are written by
#      gen_segments.py as a foreign instance's; modeld starts on them and its evaluator thread
#      reads them all in its first evaluation (the start-up rebuild: the same incremental tail,
#      from offset 0). Timed from that evaluation's start (`evaluated_at` in
#      data/guard-state/ID.json) to the file's mtime, written right after it. Target ≥ 200,000/s.
#  (b) memory per client: that modeld's VmRSS minus VmRSS of the same modeld, same guard, no
#      segments, ÷ CLIENTS. Target ≤ 64 bytes/client at 1 M clients.
#  (c) GET /latest and POST /latest (batches of 50 events) req/s: the server with the guard
#      running (evaluating every second, tailing what POST /latest stores, 1 M clients in memory)
#      vs a server with the same two releases unguarded, alternating wrk rounds.
#
#   Benchmarks/guard/run.sh                     CLIENTS=1000000 EVENTS_PER_CLIENT=3 ROUNDS=3 DURATION=10s
#   BIN=.build/debug CLIENTS=20000 ROUNDS=1 DURATION=2s Benchmarks/guard/run.sh    # smoke run
#   ROUNDS=0 …                                  (a) and (b) only
# Scratch lives in $SCRATCH (default /tmp/modeld-bench-guard), never in the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-guard}
CLIENTS=${CLIENTS:-1000000} EVENTS_PER_CLIENT=${EVENTS_PER_CLIENT:-3}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10s} CONNECTIONS=${CONNECTIONS:-64} THREADS=${THREADS:-2}
bash "$repo/scripts/install-deps.sh" wrk curl >/dev/null
die() { echo "Benchmarks/guard/run.sh: $*" >&2; exit 1; }

if [[ -z "${BIN:-}" ]]; then
  (cd "$repo" && swift build -c release --product modeld >&2 && swift build -c release --product modelctl >&2)
  BIN=$(cd "$repo" && swift build -c release --show-bin-path)
fi
[[ -x $BIN/modeld && -x $BIN/modelctl ]] || die "binaries missing in $BIN"

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
PORT=""
start() { # name models-dir data-dir guard-interval-seconds → sets PORT, appends to PIDS
  local name=$1
  (exec env MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off MODELD_GUARD_INTERVAL_SECONDS="$4" "$BIN/modeld" \
    --listen 127.0.0.1:0 --models-dir "$2" --data-dir "$3" --instance-id "bench-$name" \
    --public-base-url http://127.0.0.1) >"$SCRATCH/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 200); do
    PORT=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$SCRATCH/$name.log" | grep -oE '[0-9]+$' || true)
    [[ -n $PORT ]] && return
    sleep 0.05
  done
  die "$name did not start; see $SCRATCH/$name.log"
}
stop_last() { local p=${PIDS[-1]}; kill -TERM "$p"; wait "$p" 2>/dev/null || true; unset 'PIDS[-1]'; }
ctl() { MODELD_ADMIN_TOKEN=bench "$BIN/modelctl" "$@" --server "http://127.0.0.1:$PORT"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
head -c 65536 /dev/urandom >"$SCRATCH/model.bin"
# Waits (bounded) for the figures of the challenger in data dir $1 that the evaluator of the
# server started after `forget_state $1` wrote in its first evaluation.
forget_state() { rm -f "$1/guard-state/$challenger.json"; }
await_state() {
  for _ in $(seq 1 6000); do [[ -s $1/guard-state/$challenger.json ]] && return; sleep 0.1; done
  die "no guard state in $1 after 600 s"
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/${PIDS[-1]}/status"; }
# CPU seconds (user + system) the last started modeld has used so far.
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/${PIDS[-1]}/stat"; }

# The guarded catalog: a baseline, and a challenger at stage 50 that never has enough clients to
# decide (min_clients_per_arm above any arm), so it keeps evaluating.
start setup "$SCRATCH/models-guard" "$SCRATCH/data-guard" 3600
baseline=$(ctl publish "$SCRATCH/model.bin" --sdk-min 1.0 --json | field '["id"]')
release=$(ctl publish "$SCRATCH/model.bin" --sdk-min 1.0 --json \
  --guard '{"metric":{"name":"upsell_prompt","outcome":"purchased"},"stages":[50],"min_clients_per_arm":1000000000}')
challenger=$(field '["id"]' <<<"$release")
started_at=$(field '["guard"]["started_at"]' <<<"$release")
stop_last

# (b) baseline: the same catalog and guard, no events.
forget_state "$SCRATCH/data-empty"
start empty "$SCRATCH/models-guard" "$SCRATCH/data-empty" 3600
await_state "$SCRATCH/data-empty"
rss_empty=$(rss_kib); cpu_empty=$(cpu_s)
stop_last

# (a) segments written after the guard began, then the rebuild.
python3 "$here/gen_segments.py" "$SCRATCH/data-guard/events/${started_at:0:10}" "$challenger" "$baseline" \
  "$CLIENTS" "$EVENTS_PER_CLIENT" "$started_at"
echo "segments: $(du -sh "$SCRATCH/data-guard/events" | cut -f1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
forget_state "$SCRATCH/data-guard"
start guard "$SCRATCH/models-guard" "$SCRATCH/data-guard" 3600
await_state "$SCRATCH/data-guard"
rss_guard=$(rss_kib); cpu_guard=$(cpu_s)
python3 - "$SCRATCH/data-guard/guard-state/$challenger.json" "$((CLIENTS * EVENTS_PER_CLIENT))" "$CLIENTS" "$rss_empty" "$rss_guard" \
  "$cpu_empty" "$cpu_guard" <<'EOF'
import datetime, json, os, sys
path, events, clients, rss_empty, rss_guard = sys.argv[1], *map(int, sys.argv[2:6])
cpu = float(sys.argv[7]) - float(sys.argv[6])
state = json.load(open(path))
began = datetime.datetime.fromisoformat(state["evaluated_at"].replace("Z", "+00:00")).timestamp()
seconds = os.stat(path).st_mtime_ns / 1e9 - began
counted = sum(arm["clients"] for arm in state["arms"].values())
assert counted == clients, f"the evaluator counted {counted} clients, expected {clients}"
print(f"(a) rebuild: {events:,} events of {clients:,} clients in {seconds:.3f} s -> {events / seconds:,.0f} events/s "
      f"(target >= 200,000); {state['pending_clients']} pending")
print(f"    CPU: {cpu:.2f} s more than the same start-up without events -> {events / cpu:,.0f} events per CPU second")
delta = (rss_guard - rss_empty) * 1024
print(f"(b) VmRSS {rss_empty / 1024:.1f} MiB without events, {rss_guard / 1024:.1f} MiB with {clients:,} clients "
      f"-> {delta / clients:.1f} bytes/client (target <= 64)")
EOF
stop_last

# (c) side by side: the guarded server (evaluating every second) and an unguarded twin.
[[ $ROUNDS -gt 0 ]] || exit 0
start plain-setup "$SCRATCH/models-plain" "$SCRATCH/data-plain" 3600
ctl publish "$SCRATCH/model.bin" --sdk-min 1.0 >/dev/null
ctl publish "$SCRATCH/model.bin" --sdk-min 1.0 --rollout 50 >/dev/null
stop_last
start plain "$SCRATCH/models-plain" "$SCRATCH/data-plain" 1; plain_port=$PORT
forget_state "$SCRATCH/data-guard"
start guard "$SCRATCH/models-guard" "$SCRATCH/data-guard" 1; guard_port=$PORT
await_state "$SCRATCH/data-guard"
client="0000002a-b5e1-4c3a-9d7e-00000000002a"
event='{"name":"upsell_prompt","ts":"2026-11-24T05:00:00Z","model_id":"'$challenger'","outcome":"purchased","props":{"screen":"paywall_v2","battery":0.8}}'
{
  printf '{"batch_id":"@ID@","client_id":"%s","events":[' "$client"
  for ((i = 0; i < 50; i++)); do ((i)) && printf ','; printf '%s' "$event"; done
  printf ']}'
} >"$SCRATCH/batch.json"
get_rps() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "http://127.0.0.1:$1/latest?sdk=2.3&client_id=$client" | awk '/^Requests\/sec:/ {print $2}'; }
post_rps() {
  BODY_TEMPLATE="$SCRATCH/batch.json" EVENTS_PATH="/latest?sdk=2.3" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" \
    -s "$repo/Benchmarks/events/events.lua" "http://127.0.0.1:$1" | awk '/^WRK / {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } print v["requests"] / v["seconds"] }'
}
echo "(c) $ROUNDS round(s) of $DURATION, wrk -t$THREADS -c$CONNECTIONS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
rows=()
for r in $(seq 1 "$ROUNDS"); do
  gp=$(get_rps "$plain_port"); gg=$(get_rps "$guard_port"); pp=$(post_rps "$plain_port"); pg=$(post_rps "$guard_port")
  printf 'round %d: GET /latest %9.0f vs %9.0f with the guard; POST /latest %9.0f vs %9.0f with the guard\n' "$r" "$gp" "$gg" "$pp" "$pg"
  rows+=("$gp $gg $pp $pg")
done
printf '%s\n' "${rows[@]}" | python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
m = [statistics.median(r[i] for r in rows) for i in range(4)]
print("| route (median req/s) | without a guard | guard running | ratio |")
print("|---|---:|---:|---:|")
print(f"| GET /latest | {m[0]:,.0f} | {m[1]:,.0f} | {m[1] / m[0]:.3f} |")
print(f"| POST /latest (50 events) | {m[2]:,.0f} | {m[3]:,.0f} | {m[3] / m[2]:.3f} |")'
echo "guard state after the rounds: $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print({k: v["clients"] for k, v in s["arms"].items()}, "pending", s["pending_clients"])' "$SCRATCH/data-guard/guard-state/$challenger.json")"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
