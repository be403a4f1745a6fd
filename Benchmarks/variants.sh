#!/usr/bin/env bash
# /latest with device parameters vs without (issue #14: >= 0.95x), side by side on one server.
# Not a test: prints figures, which need a quiet machine. Same release, same server; the two
# URLs are measured in alternating rounds (ROUNDS × DURATION each) so drift hits both alike.
# The server (1 worker) and wrk (1 thread) are pinned to different cores, so the server is the
# bottleneck and the figure measures its cost per request; unpinned, the two share both cores
# and rounds of the same URL swing by 20 %. The figure is the ratio of the two sides' medians
# (as Benchmarks/signing.sh), which one disturbed round cannot swing; the mean is printed too.
#   ROUNDS=12 DURATION=5s CONNECTIONS=64 SERVER_CPU=0 CLIENT_CPU=1 Benchmarks/variants.sh
#   BIN=.build/debug ROUNDS=1 DURATION=1s Benchmarks/variants.sh   # smoke run on a built tree
# Scratch lives in $SCRATCH (default /tmp/modeld-bench-variants), never in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-variants}
PORT=${PORT:-18871}
ROUNDS=${ROUNDS:-12}; DURATION=${DURATION:-5s}; CONNECTIONS=${CONNECTIONS:-64}
SERVER_CPU=${SERVER_CPU:-0}; CLIENT_CPU=${CLIENT_CPU:-1}
bash scripts/install-deps.sh wrk curl >/dev/null

if [[ -z "${BIN:-}" ]]; then
  swift build -c release --static-swift-stdlib --product modeld >/dev/null
  swift build -c release --static-swift-stdlib --product modelctl >/dev/null
  BIN=$(swift build -c release --static-swift-stdlib --show-bin-path)
fi

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/models" "$SCRATCH/data"
for n in base 8b 3b 1b; do head -c 65536 /dev/urandom >"$SCRATCH/$n.gguf"; done
MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off taskset -c "$SERVER_CPU" "$BIN/modeld" --workers 1 --listen 127.0.0.1:$PORT \
  --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" --public-base-url http://127.0.0.1:$PORT \
  --instance-id bench-variants >"$SCRATCH/modeld.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done

ctl() { MODELD_ADMIN_TOKEN=bench "$BIN/modelctl" "$@" --server "http://127.0.0.1:$PORT"; }
id=$(ctl publish "$SCRATCH/base.gguf" --sdk-min 1.0 --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])')
ctl variant add "$id" "$SCRATCH/8b.gguf" --name 8gb --requires 'platform=ios|ipados,min_os=17.0,min_ram_mb=7000' >/dev/null
ctl variant add "$id" "$SCRATCH/3b.gguf" --name 6gb --requires 'min_ram_mb=5500' >/dev/null
ctl variant add "$id" "$SCRATCH/1b.gguf" --name tablet --requires 'device_prefix=iPad' >/dev/null

plain="http://127.0.0.1:$PORT/latest?sdk=1.0"
# Worst realistic case for the variant path: all four attributes, the first variant matching.
device="$plain&platform=ios&os=17.4&ram_mb=7680&device=iPhone16,2"
curl -fs "$device" | grep -q '"variant":"8gb"' || { echo "device URL does not answer the 8gb variant" >&2; exit 1; }
curl -fs "$plain" | grep -qv '"variant"' || { echo "plain URL answers a variant" >&2; exit 1; }

rps() { taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" "$1" | awk '/^Requests\/sec:/{print $2}'; }
plain_rps=(); device_rps=()
for round in $(seq 1 "$ROUNDS"); do
  # ABBA: the side that runs first alternates, so a drift within a pair hits both alike.
  if (( round % 2 )); then a=$(rps "$plain"); b=$(rps "$device"); else b=$(rps "$device"); a=$(rps "$plain"); fi
  printf 'round %d: without device parameters %10.0f req/s   with %10.0f req/s\n' "$round" "$a" "$b"
  plain_rps+=("$a"); device_rps+=("$b")
done
python3 - "${plain_rps[*]}" "${device_rps[*]}" <<'PY'
import statistics, sys
p, d = ([float(x) for x in a.split()] for a in sys.argv[1:3])
mp, md = statistics.median(p), statistics.median(d)
print(f"mean: without {statistics.mean(p):.0f} req/s, with {statistics.mean(d):.0f} req/s -> {statistics.mean(d)/statistics.mean(p):.3f}x")
print(f"median of {len(p)}: without {mp:.0f} req/s, with {md:.0f} req/s -> {md/mp:.3f}x (target >= 0.95x)")
PY
