#!/usr/bin/env bash
# /latest req/s with signing on vs off, side by side (issue #12: on ≥ 0.95 × off). Two release
# modeld processes on the same demo catalog — one unsigned, one with two Ed25519 keys (the
# rotation worst case) — measured alternately with wrk (off, on, off, on, …) so drift hits both.
#
#   Benchmarks/signing.sh                 RUNS=3 DUR=10 CONNS=50 THREADS=2 WORKERS=1
#   RUNS=1 DUR=2 Benchmarks/signing.sh    a smoke run (figures need a quiet machine)
#   BENCH_ROOT=/tmp/modeld-bench          scratch (models copy, keys, logs): never in the repository
#   BUILD=debug                           use the debug binaries (smoke runs only)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_ROOT=${BENCH_ROOT:-/tmp/modeld-bench}/signing
RUNS=${RUNS:-3} DUR=${DUR:-10} CONNS=${CONNS:-50} THREADS=${THREADS:-2} WORKERS=${WORKERS:-1} BUILD=${BUILD:-release}
die() { echo "Benchmarks/signing.sh: $*" >&2; exit 1; }
for tool in wrk curl python3 swift; do command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install -y wrk curl)"; done

if [[ $BUILD == release ]]; then
  echo "== swift build -c release (modeld, modelctl)" >&2
  (cd "$REPO" && swift build -c release --product modeld >&2 && swift build -c release --product modelctl >&2)
fi
BIN=$(cd "$REPO" && swift build -c "$BUILD" --show-bin-path)
[[ -x $BIN/modeld && -x $BIN/modelctl ]] || die "binaries missing in $BIN"

rm -rf "$BENCH_ROOT"; mkdir -p "$BENCH_ROOT"
cp -r "$REPO/models" "$BENCH_ROOT/models"
"$BIN/modelctl" keys generate --name a --out "$BENCH_ROOT/keys" >/dev/null
"$BIN/modelctl" keys generate --name b --out "$BENCH_ROOT/keys" >/dev/null

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
start() { # name extra-env… → sets STARTED_PORT (not echoed: PIDS+= must run in this shell)
  local name=$1; shift
  (cd "$BENCH_ROOT" && exec env -u MODELD_ADMIN_TOKEN "$@" "$BIN/modeld" --listen 127.0.0.1:0 --workers "$WORKERS" \
    --models-dir "$BENCH_ROOT/models" --data-dir "$BENCH_ROOT/data-$name" --instance-id "$name" \
    --public-base-url http://127.0.0.1) >"$BENCH_ROOT/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 200); do
    local port; port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$BENCH_ROOT/$name.log" | grep -oE '[0-9]+$' || true)
    [[ -n $port ]] && { STARTED_PORT=$port; return; }
    sleep 0.05
  done
  die "$name did not start; see $BENCH_ROOT/$name.log"
}
start off MODELD_ACCESS_LOG=off; OFF=$STARTED_PORT
start on MODELD_ACCESS_LOG=off MODELD_SIGNING_KEYS="$BENCH_ROOT/keys/a.key,$BENCH_ROOT/keys/b.key"; ON=$STARTED_PORT
curl -sf -D - -o /dev/null "http://127.0.0.1:$ON/latest?sdk=2.3" | grep -qi '^modeld-signature:' || die "the signing server sends no signature"
curl -sf -D - -o /dev/null "http://127.0.0.1:$OFF/latest?sdk=2.3" | grep -qi '^modeld-signature:' && die "the unsigned server signs"

rps() { wrk -t"$THREADS" -c"$CONNS" -d"${DUR}s" --latency "http://127.0.0.1:$1/latest?sdk=2.3" | awk '/Requests\/sec/ {print $2}'; }
echo "== $RUNS round(s) of ${DUR}s, wrk -t$THREADS -c$CONNS, modeld --workers $WORKERS ($BUILD); load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
results=()
for r in $(seq 1 "$RUNS"); do
  off=$(rps "$OFF"); on=$(rps "$ON")
  echo "round $r: off $off req/s, on $on req/s" >&2
  results+=("$off $on")
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
off = statistics.median(r[0] for r in rows); on = statistics.median(r[1] for r in rows)
print("| /latest?sdk=2.3 | signing off req/s | signing on (2 keys) req/s | on / off |")
print("|---|---|---|---|")
print(f"| median of {len(rows)} | {off:,.0f} | {on:,.0f} | {on / off:.3f} |")
print("target on/off >= 0.95:", "met" if on / off >= 0.95 else "NOT met")'
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
