#!/usr/bin/env bash
# modeld-client figures (issue #12 item 8). Not a test: prints figures; they need a quiet machine.
#  1. A SIZE (default 1 GiB) update through `modeld-client update` (stream to disk, fsynced
#     checkpoints, SHA-256, atomic install) versus `curl -o` of the same file from the same
#     server on loopback. Target: >= 0.9x curl's throughput.
#  2. Peak RSS of modeld-client during a BIG (default 4 GiB) update. Target: < 64 MiB.
#  3. `modeld-client simulate` with CLIENTS (default 10,000) installs: update checks/s and events/s.
# Scratch lives in $SCRATCH (default /tmp/modeld-bench-client), never in the repository.
# Smaller runs: SIZE_MIB=64 BIG_MIB=256 CLIENTS=500 SECONDS_SIM=3 Benchmarks/client/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-client}
PORT=${PORT:-18890}
SIZE_MIB=${SIZE_MIB:-1024}
BIG_MIB=${BIG_MIB:-4096}
CLIENTS=${CLIENTS:-10000}
SECONDS_SIM=${SECONDS_SIM:-10}
RATE=${RATE:-20000}
bash scripts/install-deps.sh curl bc time >/dev/null

for product in modeld modelctl modeld-client; do swift build -c release --product "$product" >/dev/null; done
bin=$(swift build -c release --show-bin-path)

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/models" "$SCRATCH/data"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$SCRATCH/model.bin"

MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$bin/modeld" --listen 127.0.0.1:$PORT \
  --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" --public-base-url http://127.0.0.1:$PORT \
  --instance-id bench >"$SCRATCH/modeld.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
publish() { MODELD_ADMIN_TOKEN=bench "$bin/modelctl" publish "$1" --sdk-min "$2" --server "http://127.0.0.1:$PORT" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])'; }
url=$(publish "$SCRATCH/model.bin" 1.0)
client() { "$bin/modeld-client" --server "http://127.0.0.1:$PORT" --sdk "$1" --cache "$2" "${@:3}" 2>/dev/null; }

echo "== ${SIZE_MIB} MiB update: modeld-client vs curl -o (page cache warm)"
curl -fs -o /dev/null "$url"
best_curl=999; best_client=999
for run in 1 2 3; do
  rm -rf "$SCRATCH/cache" "$SCRATCH/curl.bin"
  s=$(date +%s.%N); curl -fs -o "$SCRATCH/curl.bin" "$url"; c=$(echo "$(date +%s.%N) - $s" | bc)
  s=$(date +%s.%N); client 1.0 "$SCRATCH/cache" update >/dev/null; m=$(echo "$(date +%s.%N) - $s" | bc)
  mb=$(echo "$SIZE_MIB * 1.048576" | bc -l)
  printf '  run %d: curl -o %.2f s (%.0f MB/s)   modeld-client update %.2f s (%.0f MB/s)\n' \
    "$run" "$c" "$(echo "$mb / $c" | bc -l)" "$m" "$(echo "$mb / $m" | bc -l)"
  best_curl=$(echo "if ($c < $best_curl) $c else $best_curl" | bc); best_client=$(echo "if ($m < $best_client) $m else $best_client" | bc)
done
printf 'update %d MiB: best %.2f s vs curl %.2f s -> %.2fx of curl'"'"'s throughput (target >= 0.9x)\n' \
  "$SIZE_MIB" "$best_client" "$best_curl" "$(echo "$best_curl / $best_client" | bc -l)"
rm -f "$SCRATCH/model.bin" "$SCRATCH/curl.bin"; rm -rf "$SCRATCH/cache"

echo "== ${BIG_MIB} MiB update: peak RSS of modeld-client"
truncate -s $((BIG_MIB << 20)) "$SCRATCH/big.bin"; head -c 1048576 /dev/urandom >>"$SCRATCH/big.bin"
publish "$SCRATCH/big.bin" 5.0 >/dev/null; rm -f "$SCRATCH/big.bin"
/usr/bin/time -f '%e %M' -o "$SCRATCH/time" "$bin/modeld-client" --server "http://127.0.0.1:$PORT" --sdk 5.0 \
  --cache "$SCRATCH/bigcache" update >/dev/null 2>&1
read -r tb kib <"$SCRATCH/time"
printf 'update %d MiB + 1 MiB: %.1f s; modeld-client peak RSS %.1f MiB (target < 64 MiB)\n' "$BIG_MIB" "$tb" "$(echo "$kib / 1024" | bc -l)"
rm -rf "$SCRATCH/bigcache"

echo "== simulate: $CLIENTS clients for ${SECONDS_SIM} s (asked rate $RATE checks/s)"
model=$(basename "$url"); model=${model%%.*}
"$bin/modeld-client" --server "http://127.0.0.1:$PORT" --sdk 1.0 --cache "$SCRATCH/simcache" simulate \
  --clients "$CLIENTS" --duration "$SECONDS_SIM" --rate "$RATE" --outcome "$model=0.1"
