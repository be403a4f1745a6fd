#!/usr/bin/env bash
# Publish throughput and memory (issue: catalog & publishing). Not a test: prints figures.
#  1. A 1 GiB file published through `modelctl publish` to a running release modeld (streamed
#     with libcurl, SHA-256 while streaming, server hashes, fsyncs, renames, updates the catalog)
#     versus the floor an operator would otherwise pay: `sha256sum F && cp F DEST && sync`.
#  2. Peak RSS of server and CLI during a 4 GiB upload.
#  3. Peak RSS of the server during 1,000 concurrent downloads (wrk -c1000 on a 64 MiB model).
# Scratch lives in $SCRATCH (default /tmp/modeld-bench-publish), never in the repository.
# AB_REV=<git rev>: the 1 GiB publish also runs, interleaved, through modeld + modelctl built from
# that revision (its own server and models dir), e.g. to show what chunk lists (SPEC §14) cost.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-publish}
PORT=${PORT:-18870}
bash scripts/install-deps.sh wrk curl bc time >/dev/null

swift build -c release --static-swift-stdlib --product modeld >/dev/null
swift build -c release --static-swift-stdlib --product modelctl >/dev/null
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
base_bin=""
if [[ -n "${AB_REV:-}" ]]; then
  # shellcheck source=Benchmarks/ab-base.sh
  source Benchmarks/ab-base.sh
  base_bin=$(ab_base_bin "$PWD" "$AB_REV" "-c release --static-swift-stdlib" modeld modelctl)
fi

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/models" "$SCRATCH/data" "$SCRATCH/copy" "$SCRATCH/base-models" "$SCRATCH/base-data"
need=$((7 * 1024 * 1024))   # KiB: 1 GiB + 4 GiB sources, their published copies, headroom
avail=$(df -k --output=avail "$SCRATCH" | tail -1)
(( avail > need )) || { echo "need ~7 GiB free in $SCRATCH, have $((avail / 1024)) MiB" >&2; exit 1; }
head -c 1073741824 /dev/urandom >"$SCRATCH/1g.bin"
head -c 67108864 /dev/urandom >"$SCRATCH/64m.bin"

MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$bin/modeld" --listen 127.0.0.1:$PORT \
  --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" --public-base-url http://127.0.0.1:$PORT \
  --instance-id bench >"$SCRATCH/modeld.log" 2>&1 &
pid=$!
base_pid=""
if [[ -n $base_bin ]]; then
  MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$base_bin/modeld" --listen 127.0.0.1:$((PORT + 1)) \
    --models-dir "$SCRATCH/base-models" --data-dir "$SCRATCH/base-data" --public-base-url http://127.0.0.1:$((PORT + 1)) \
    --instance-id bench-base >"$SCRATCH/modeld-base.log" 2>&1 &
  base_pid=$!
fi
trap 'kill -TERM $pid $base_pid 2>/dev/null; wait $pid $base_pid 2>/dev/null || true' EXIT
for port in $PORT ${base_pid:+$((PORT + 1))}; do
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
done
hwm() { awk '/^VmHWM:/{printf "%.1f", $2/1024}' "/proc/$pid/status"; }
reset_hwm() { echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true; }   # resets VmHWM (Linux ≥ 4.0)
# publish FILE [BIN PORT]: through this checkout's modelctl and modeld unless told otherwise
publish() { MODELD_ADMIN_TOKEN=bench /usr/bin/time -f '%e %M' -o "$SCRATCH/time" \
  "${2:-$bin}/modelctl" publish "$1" --sdk-min 1.0 --server "http://127.0.0.1:${3:-$PORT}" --json >/dev/null; }

echo "== 1 GiB publish (page cache warm for both sides)"
cat "$SCRATCH/1g.bin" >/dev/null
best_floor=999; best_pub=999
for run in 1 2 3; do
  s=$(date +%s.%N); sha256sum "$SCRATCH/1g.bin" >/dev/null && cp "$SCRATCH/1g.bin" "$SCRATCH/copy/1g-$run.bin" && sync
  floor=$(echo "$(date +%s.%N) - $s" | bc); rm -f "$SCRATCH/copy/1g-$run.bin"
  publish "$SCRATCH/1g.bin"; read -r pub cli_kib <"$SCRATCH/time"
  printf '  run %d: sha256sum+cp+sync %.2f s (%.0f MB/s)   modelctl publish %.2f s (%.0f MB/s)   CLI RSS %.1f MiB\n' \
    "$run" "$floor" "$(echo "1073.741824 / $floor" | bc -l)" "$pub" "$(echo "1073.741824 / $pub" | bc -l)" "$(echo "$cli_kib / 1024" | bc -l)"
  best_floor=$(echo "if ($floor < $best_floor) $floor else $best_floor" | bc); best_pub=$(echo "if ($pub < $best_pub) $pub else $best_pub" | bc)
  if [[ -n $base_pid ]]; then
    publish "$SCRATCH/1g.bin" "$base_bin" $((PORT + 1)); read -r base _ <"$SCRATCH/time"
    printf '  run %d: modelctl publish at %s %.2f s\n' "$run" "$AB_REV" "$base"
    best_base=$(echo "if ($base < ${best_base:-999}) $base else ${best_base:-999}" | bc)
  fi
done
printf 'publish 1 GiB: best %.2f s vs floor %.2f s -> %.2fx of the floor'"'"'s speed (target >= 0.8x)\n' \
  "$best_pub" "$best_floor" "$(echo "$best_floor / $best_pub" | bc -l)"
[[ -z $base_pid ]] || printf 'publish 1 GiB A/B: best %.2f s here vs %.2f s at %s -> %.3fx the time\n' \
  "$best_pub" "$best_base" "$AB_REV" "$(echo "$best_pub / $best_base" | bc -l)"

echo "== 4 GiB upload: peak RSS"
truncate -s 4G "$SCRATCH/4g.bin"; head -c 1048576 /dev/urandom >>"$SCRATCH/4g.bin"
reset_hwm
publish "$SCRATCH/4g.bin"; read -r t4 cli4 <"$SCRATCH/time"
printf 'upload 4 GiB + 1 MiB: %.1f s; peak RSS server %s MiB, modelctl %.1f MiB (target < 64 MiB each)\n' \
  "$t4" "$(hwm)" "$(echo "$cli4 / 1024" | bc -l)"
rm -f "$SCRATCH/4g.bin"

echo "== 1,000 concurrent downloads: peak RSS"
url=$(MODELD_ADMIN_TOKEN=bench "$bin/modelctl" publish "$SCRATCH/64m.bin" --sdk-min 1.0 --server "http://127.0.0.1:$PORT" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')
ulimit -n 65536 2>/dev/null || true   # wrk needs ~1,000 fds; raise when allowed
reset_hwm
timeout 60 wrk -t2 -c1000 -d10s --timeout 30s "$url" | grep -E 'Requests/sec|Transfer/sec|Socket errors' || true
printf '1,000 concurrent downloads of 64 MiB: peak RSS server %s MiB (target < 64 MiB)\n' "$(hwm)"
