#!/usr/bin/env bash
# Delta updates (issue #22, SPEC §14). Not a test: prints figures. Synthetic fp16 weights as in
# reference/delta-updates.md (synth.py): a 270 MB safetensors-layout file and three successors.
# One modeld (release build) on 127.0.0.1, one modeld-client cache updated through them in turn:
#   base  → full download (the reference time)
#   head  → the classifier head replaced (≈ 1 % of the bytes): delta
#   shift → the base with 64 bytes added to its header (every tensor moved): delta
#   tuned → every weight moved a few ULPs: nothing reusable, the full download
# For each: bytes fetched (modeld-client `update --json`), wall time, and what `modelctl delta`
# says the changed chunks are. Then chunking speed (chunkspeed.swift, -O) and, with BIG=1, the
# client's peak RSS during a delta update of a 4 GiB file. Scratch in $SCRATCH, never the repo.
# The sequence runs twice: on loopback, and through a LINK_MBIT (100) link (Benchmarks/link.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-delta}
PORT=${PORT:-18871}
bash scripts/install-deps.sh curl time nginx >/dev/null

for product in modeld modelctl modeld-client; do swift build -c release --product $product >/dev/null; done
bin=$(swift build -c release --show-bin-path)

rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/w"
python3 Benchmarks/delta/synth.py "$SCRATCH/w"

# The device's link (Benchmarks/link.sh): the second pass sends everything through nginx at
# LINK_MBIT (per connection: a delta's ranges, up to 4 at a time, get no more than 4x that).
# shellcheck source=Benchmarks/link.sh
source Benchmarks/link.sh
LINK_MBIT=${LINK_MBIT:-100}
LINK_PORT=$((PORT + 1))
link_start "$SCRATCH" "$PORT" "$LINK_PORT" "$LINK_MBIT"
pid=""
stop_modeld() { [[ -z $pid ]] || { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=""; }; }
trap 'stop_modeld; link_stop "$SCRATCH"' EXIT
# start_modeld BASE_URL: a fresh modeld (models, data) whose answers point at BASE_URL, which the
# client also calls, and a fresh client cache
start_modeld() {
  stop_modeld
  rm -rf "$SCRATCH/models" "$SCRATCH/data" "$SCRATCH/cache"; mkdir -p "$SCRATCH/models" "$SCRATCH/data"
  client_url=$1
  MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$bin/modeld" --listen 127.0.0.1:$PORT \
    --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" --public-base-url "$client_url" \
    --instance-id bench >"$SCRATCH/modeld.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
}

publish() { MODELD_ADMIN_TOKEN=bench "$bin/modelctl" publish "$1" --sdk-min 1.0 --server "http://127.0.0.1:$PORT" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
update() {   # prints: seconds bytes_fetched peak_rss_MiB
  /usr/bin/time -f '%e %M' -o "$SCRATCH/time" "$bin/modeld-client" --server "$client_url" --sdk 1.0 \
    --cache "$SCRATCH/cache" --json update >"$SCRATCH/update.json"
  read -r wall rss <"$SCRATCH/time"
  echo "$wall $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes_fetched"])' "$SCRATCH/update.json") $((rss / 1024))"
}
method() { python3 - "$SCRATCH/cache" <<'PY'
import json, os, sys
lines = [json.loads(l) for root, _, files in os.walk(sys.argv[1]) for f in sorted(files) if f.endswith(".jsonl")
         for l in open(os.path.join(root, f)) if l.strip()]
print([l for l in lines if l.get("name") == "model_activated"][-1]["props"]["method"])
PY
}

size=$(stat -c %s "$SCRATCH/w/base.safetensors")
echo "== files: $size bytes each (synthetic fp16, reference note §2)"
for link in loopback "$LINK_MBIT Mbit/s"; do
  if [[ $link == loopback ]]; then start_modeld "http://127.0.0.1:$PORT"; else start_modeld "http://127.0.0.1:$LINK_PORT"; fi
  echo "-- link: $link"
  prev=$(publish "$SCRATCH/w/base.safetensors")
  read -r t_full b_full rss_full < <(update)
  echo "base   $(method) : ${t_full}s, fetched $b_full bytes, client peak RSS ${rss_full} MiB"
  for v in head shift tuned; do
    id=$(publish "$SCRATCH/w/$v.safetensors")
    plan=$("$bin/modelctl" delta "$prev" "$id" --json --models-dir "$SCRATCH/models")
    read -r t b rss < <(update)
    python3 - "$v" "$t" "$b" "$rss" "$t_full" "$size" "$plan" "$(method)" <<'PY'
import json, sys
v, t, b, rss, tf, size, plan, method = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), int(sys.argv[6]), json.loads(sys.argv[7]), sys.argv[8]
need = plan["bytes_to_fetch"]
print(f"{v:6} {method:5}: {t:.2f}s ({t / tf:.1%} of the full download), fetched {b} bytes = {b / size:.2%} of the file, "
      f"{b / need if need else float('inf'):.2f}x the changed chunks ({need} bytes, {plan['requests']} requests), peak RSS {rss} MiB")
PY
    prev=$id
  done
done

echo "== chunking speed (one core, page cache, best of 3)"
release=$(swift build -c release --show-bin-path)
out=$SCRATCH/chunkspeed
# ChunkList compiled whole-module beside the benchmark; SHA-256 from the release build's CryptoPrimitives.
swiftc -O -parse-as-library -module-name ChunkList -emit-module -emit-module-path "$SCRATCH/ChunkList.swiftmodule" -wmo \
  -I "$release/Modules" -I Sources/CLibcrypto -c Sources/ChunkList/*.swift -o "$SCRATCH/ChunkList.o"
swiftc -O -parse-as-library -I "$SCRATCH" -I "$release/Modules" -I Sources/CLibcrypto Benchmarks/delta/chunkspeed.swift \
  "$SCRATCH/ChunkList.o" "$release"/CryptoPrimitives.build/*.o -lcrypto -o "$out" 2>&1 | grep -v warning || true
"$out" "$SCRATCH/w/base.safetensors"

if [[ ${BIG:-0} == 1 ]]; then
  echo "== client peak RSS, delta update of a 4 GiB file (1 % changed)"
  head -c $((4 << 30)) /dev/urandom >"$SCRATCH/w/big1.bin"
  cp "$SCRATCH/w/big1.bin" "$SCRATCH/w/big2.bin"
  head -c $((40 << 20)) /dev/urandom | dd of="$SCRATCH/w/big2.bin" bs=1M seek=2000 conv=notrunc status=none
  start_modeld "http://127.0.0.1:$PORT"; publish "$SCRATCH/w/big1.bin" >/dev/null; update >/dev/null
  publish "$SCRATCH/w/big2.bin" >/dev/null
  read -r t b rss < <(update)
  echo "4 GiB $(method): ${t}s, fetched $b bytes, client peak RSS ${rss} MiB"
fi
