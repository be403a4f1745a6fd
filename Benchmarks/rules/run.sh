#!/usr/bin/env bash
# Rules on the device (SPEC §9.2, issue #21 "Measure"). Not a test: prints figures, which need a
# quiet machine.
#  (a) snapshot size of a channel with RELEASES releases × VARIANTS variants each: identity and
#      gzip bytes as modeld serves /rules/stable/<N>.json (the catalog is generated, the rules
#      files are written by modeld itself at start-up);
#  (b) client evaluation time per check: `modeld-client evaluate` decodes that snapshot once and
#      evaluates it for ITERATIONS client ids with device attributes (the shared ReleaseSelector);
#  (c) pointer polls through the nginx cache proxy (deploy/nginx): bytes on the wire of a 200 and
#      of a 304 revalidation (If-None-Match), headers included, as curl counts them.
#
#   Benchmarks/rules/run.sh                                  RELEASES=50 VARIANTS=20 ITERATIONS=200000
#   BIN=.build/debug ITERATIONS=20000 Benchmarks/rules/run.sh   # smoke run on a debug build
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-rules}
RELEASES=${RELEASES:-50} VARIANTS=${VARIANTS:-20} ITERATIONS=${ITERATIONS:-200000}
die() { echo "Benchmarks/rules/run.sh: $*" >&2; exit 1; }
if [[ -z "${BIN:-}" ]]; then
  (cd "$repo" && swift build -c release --product modeld >&2 && swift build -c release --product modeld-client >&2)
  BIN=$(cd "$repo" && swift build -c release --show-bin-path)
fi
[[ -x $BIN/modeld && -x $BIN/modeld-client ]] || die "binaries missing in $BIN"
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/models" "$SCRATCH/data"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# A catalog as publishes would leave it: sdk ranges, labels, partial rollouts, 4-condition variants.
python3 - "$SCRATCH/models/catalog.json" "$RELEASES" "$VARIANTS" <<'PY'
import json, sys, uuid, hashlib, random
path, n, v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(21)
rels = []
for i in range(n):
    rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    variants = [{"name": "v%02d" % j, "file": str(uuid.UUID(int=rng.getrandbits(128), version=4)) + ".mlmodelc.zip",
                 "sha256": hashlib.sha256(b"%d-%d" % (i, j)).hexdigest(), "size": rng.randrange(10**6, 4 * 10**9),
                 "requires": {"platform": ["ios", "ipados"], "min_os": "17.%d" % (j % 5), "min_ram_mb": 1000 * (j + 1),
                              "device_prefix": ["iPhone%d," % (12 + j % 6), "iPad%d," % (10 + j % 4)]},
                 "added_at": "2026-11-01T10:00:00.000Z"} for j in range(v)]
    rels.append({"id": rid, "seq": i + 1, "file": rid + ".mlmodelc.zip", "ext": "mlmodelc.zip",
                 "sha256": hashlib.sha256(b"%d" % i).hexdigest(), "size": rng.randrange(10**6, 4 * 10**9),
                 "sdk_min": "2.%d" % (i % 10), "sdk_max": "9.0", "channel": "stable",
                 "rollout_percent": rng.choice([100, 100, 50, 10, 1]), "state": "active",
                 "label": "build %d of the upsell ranker" % i, "published_at": "2026-11-01T10:%02d:00.000Z" % (i % 60),
                 "content_type": "application/zip", "variants": variants})
json.dump({"format": 1, "catalog_version": 1, "public_base_url": "https://cdn.example.com/app", "next_seq": n + 1,
           "releases": rels}, open(path, "w"))
PY

log="$SCRATCH/modeld.log"
"$BIN/modeld" --listen 127.0.0.1:0 --models-dir "$SCRATCH/models" --data-dir "$SCRATCH/data" \
  --public-base-url https://cdn.example.com/app >"$log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -qo 'listening on http://127.0.0.1:[0-9]*' "$log" && break; sleep 0.1; done
PORT=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$') || die "modeld did not start: $(cat "$log")"
for _ in $(seq 100); do [[ -f $SCRATCH/models/rules/stable.sig.json ]] && break; sleep 0.1; done
file=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["file"])' "$SCRATCH/models/rules/stable.sig.json")
identity=$(curl -s -o /dev/null -w '%{size_download}' "http://127.0.0.1:$PORT/rules/$file")
gzip=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "http://127.0.0.1:$PORT/rules/$file")
echo "(a) snapshot of $RELEASES releases x $VARIANTS variants: identity $identity bytes, gzip $gzip bytes"

echo "(b) client evaluation ($ITERATIONS checks, ios 17.3, 8 GB, iPhone15,2):"
"$BIN/modeld-client" --rules "http://127.0.0.1:$PORT" --sdk 2.5 --cache "$SCRATCH/cache" \
  --platform ios --os 17.3 --ram-mb 8192 --device iPhone15,2 \
  evaluate --snapshot "$SCRATCH/models/rules/$file" --iterations "$ITERATIONS"

if command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; then
  NPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  bash "$repo/scripts/nginx-cache-proxy.sh" --listen "127.0.0.1:$NPORT" --upstream "127.0.0.1:$PORT" \
    --prefix "$SCRATCH/nginx" >"$SCRATCH/nginx.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$NPORT/healthz" && break; sleep 0.1; done
  url="http://127.0.0.1:$NPORT/rules/stable.sig.json"
  read -r status200 bytes200 < <(curl -s -o /dev/null -w '%{http_code} %{size_download}\n' "$url")
  headers200=$(curl -s -o /dev/null -w '%{size_header}' "$url")
  etag=$(curl -s -D - -o /dev/null "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
  request=$(printf 'GET /rules/stable.sig.json HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUser-Agent: curl\r\nAccept: */*\r\nIf-None-Match: %s\r\n\r\n' "$NPORT" "$etag" | wc -c)
  read -r status304 headers304 cache304 < <(curl -s -o /dev/null -H "If-None-Match: $etag" \
    -w '%{http_code} %{size_header} %header{x-cache-status}\n' "$url")
  echo "(c) pointer poll through nginx: 200 = $headers200 header + $bytes200 body bytes; 304 revalidation = $headers304 response bytes ($cache304) + $request request bytes"
else
  echo "(c) skipped: nginx not installed"
fi
