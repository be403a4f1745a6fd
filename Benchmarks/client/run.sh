#!/usr/bin/env bash
# modeld-client figures (issue #12 item 8). Not a test: prints figures; they need a quiet machine.
#  1. A SIZE_MIB (default 1024; 4096 for the RSS target) update through `modeld-client update`
#     (stream to disk, fsynced checkpoints, SHA-256, atomic install) versus `curl -o` followed by
#     `sha256sum` of the same file from the same release-built modeld on loopback, interleaved
#     RUNS times. Targets: >= 0.9x curl+sha256sum's throughput; client peak RSS < 64 MiB. Also
#     shown: curl+sha256sum+`sync FILE`, the peer with the durability the client's fsyncs buy.
#  2. `modeld-client simulate` with CLIENTS (default 10,000) installs: update checks/s, events/s
#     and its peak RSS.
# Scratch lives in $SCRATCH (default /tmp/modeld-bench-client), never in the repository.
# Smoke run: SIZE_MIB=64 RUNS=1 CLIENTS=500 SECONDS_SIM=3 RATE=2000 Benchmarks/client/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-client}
PORT=${PORT:-18890}
SIZE_MIB=${SIZE_MIB:-1024}
RUNS=${RUNS:-3}
CLIENTS=${CLIENTS:-10000}
SECONDS_SIM=${SECONDS_SIM:-10}
RATE=${RATE:-20000}
bash scripts/install-deps.sh curl bc time coreutils >/dev/null

for product in modeld modelctl modeld-client; do swift build -c release --product "$product" >/dev/null; done
bin=$(swift build -c release --show-bin-path)

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/models" "$SCRATCH/data"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$SCRATCH/model.bin"

MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$bin/modeld" --listen 127.0.0.1:$PORT \
  --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" --public-base-url http://127.0.0.1:$PORT \
  --instance-id bench >"$SCRATCH/modeld.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
url=$(MODELD_ADMIN_TOKEN=bench "$bin/modelctl" publish "$SCRATCH/model.bin" --sdk-min 1.0 --server "http://127.0.0.1:$PORT" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')
rm -f "$SCRATCH/model.bin"
mb=$(echo "$SIZE_MIB * 1.048576" | bc -l)
now() { date +%s.%N; }

echo "== ${SIZE_MIB} MiB update, $RUNS interleaved runs: modeld-client update vs curl -o + sha256sum (page cache warm)"
curl -fs -o /dev/null "$url"
best_curl=999999; best_sync=999999; best_client=999999; peak_kib=0
for run in $(seq 1 "$RUNS"); do
  rm -rf "$SCRATCH/cache" "$SCRATCH/curl.bin"
  s=$(now); curl -fs -o "$SCRATCH/curl.bin" "$url"; sha256sum "$SCRATCH/curl.bin" >/dev/null; c=$(echo "$(now) - $s" | bc)
  sync "$SCRATCH/curl.bin"; cs=$(echo "$(now) - $s" | bc)  # what the client's fsyncs add, done curl's way
  rm -f "$SCRATCH/curl.bin"
  s=$(now)
  /usr/bin/time -f '%M' -o "$SCRATCH/rss" "$bin/modeld-client" --server "http://127.0.0.1:$PORT" --sdk 1.0 \
    --cache "$SCRATCH/cache" update >/dev/null 2>"$SCRATCH/client.err" || { cat "$SCRATCH/client.err" >&2; exit 1; }
  m=$(echo "$(now) - $s" | bc); kib=$(tail -1 "$SCRATCH/rss")
  printf '  run %d: curl -o + sha256sum %.2f s (%.0f MB/s; + sync %.2f s)   modeld-client update %.2f s (%.0f MB/s, peak RSS %.1f MiB)\n' \
    "$run" "$c" "$(echo "$mb / $c" | bc -l)" "$cs" "$m" "$(echo "$mb / $m" | bc -l)" "$(echo "$kib / 1024" | bc -l)"
  best_curl=$(echo "if ($c < $best_curl) $c else $best_curl" | bc); best_client=$(echo "if ($m < $best_client) $m else $best_client" | bc)
  best_sync=$(echo "if ($cs < $best_sync) $cs else $best_sync" | bc)
  if [ "$kib" -gt "$peak_kib" ]; then peak_kib=$kib; fi
done
rm -rf "$SCRATCH/cache"
printf 'update %d MiB: best %.2f s vs curl+sha256sum %.2f s -> %.2fx (target >= 0.9x; %.2fx of curl+sha256sum+sync); client peak RSS %.1f MiB (target < 64 MiB)\n' \
  "$SIZE_MIB" "$best_client" "$best_curl" "$(echo "$best_curl / $best_client" | bc -l)" "$(echo "$best_sync / $best_client" | bc -l)" \
  "$(echo "$peak_kib / 1024" | bc -l)"

echo "== simulate: $CLIENTS clients for ${SECONDS_SIM} s (asked rate $RATE checks/s)"
model=$(basename "$url"); model=${model%%.*}
/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$bin/modeld-client" --server "http://127.0.0.1:$PORT" --sdk 1.0 --cache "$SCRATCH/simcache" \
  --json simulate --clients "$CLIENTS" --duration "$SECONDS_SIM" --rate "$RATE" --outcome "$model=0.1" >"$SCRATCH/sim.json"
python3 - "$SCRATCH/sim.json" "$(tail -1 "$SCRATCH/rss")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"simulate {r['clients']} clients, {r['seconds']:.1f} s: {r['checks_per_second']:,.0f} update checks/s, "
      f"{r['events_per_second']:,.0f} events/s, "
      f"{r['errors']} errors; peak RSS {int(sys.argv[2]) / 1024:.1f} MiB")
PY
