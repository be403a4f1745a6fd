#!/usr/bin/env bash
# Tensor-aware transfer (issue #30, SPEC §16). Not a test: prints figures, one run per table.
#   1. Real models: public float weights from PyPI (README.md names them), pairs of releases.
#   2. Generated fine-tunes (finetune.py): float32 and float16, relative change 1e-3 and 1e-2.
#   For each pair, the bytes a device would fetch as a share of the new file: full, chunk delta
#   (`modelctl delta`, SPEC §14), pack (`modelctl pack`), patch (`modelctl patch`), and the time
#   to make the pack and the patch (release build, one core).
#   3. Decoding speed: `modelctl unpack` of the generated packs and patches, output MB per
#      second of CPU (user + sys: per core; it includes reading, XOR, SHA-256 and writing).
#   4. Peak RSS decoding a BIG_GIB (4) GiB float32 fine-tune patch (/usr/bin/time); BIG_GIB=0
#      skips it.
# Scratch in $SCRATCH, never the repo.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-transfer}
WEIGHTS=${WEIGHTS:-16777216}   # per generated file: 64 MiB of float32, 32 MiB of float16
BIG_GIB=${BIG_GIB:-4}
bash scripts/install-deps.sh time >/dev/null
swift build -c release --product modelctl >/dev/null
ctl="$(swift build -c release --show-bin-path)/modelctl"
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH/real" "$SCRATCH/gen" "$SCRATCH/out"

# pair NAME OLD NEW: one table row. Chunk delta is what `modelctl delta` says is left to fetch
# (the client takes it only when it reuses ≥ 10 %; the .chunks list itself is not counted).
pair() {
  local name=$1 old=$2 new=$3
  local delta pack patch t0 t1 t2
  delta=$("$ctl" delta "$old" "$new" --json)
  t0=$(date +%s.%N); pack=$("$ctl" pack "$new" --json)
  t1=$(date +%s.%N); patch=$("$ctl" patch "$old" "$new" --json)
  t2=$(date +%s.%N)
  python3 - "$name" "$(stat -c %s "$new")" "$delta" "$pack" "$patch" "$t0" "$t1" "$t2" <<'PY'
import json, sys
name, size = sys.argv[1], int(sys.argv[2])
delta, pack, patch = (json.loads(a) for a in sys.argv[3:6])
t0, t1, t2 = (float(a) for a in sys.argv[6:9])
print(f"| {name} | {size:,} | 1.000 | {delta['bytes_to_fetch'] / size:.3f} | {pack['ratio']:.3f} (w={pack['width']}) "
      f"| {patch['ratio']:.3f} (w={patch['width']}) | {size / 1e6 / (t1 - t0):.0f} | {size / 1e6 / (t2 - t1):.0f} |")
PY
}
header() {
  echo "| pair | new file, bytes | full | chunk delta | pack | patch | pack MB/s | patch MB/s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
}

echo "== real models (PyPI: silero-vad 5.1.2, 6.0.0, 6.2.3)"
for v in 5.1.2 6.0.0 6.2.3; do
  pip download --quiet --no-deps "silero-vad==$v" -d "$SCRATCH/real/whl-$v" >/dev/null
  python3 -m zipfile -e "$SCRATCH/real/whl-$v"/*.whl "$SCRATCH/real/$v"
done
header
for f in silero_vad.onnx silero_vad.jit; do
  pair "$f 5.1.2 → 6.0.0" "$SCRATCH/real/5.1.2/silero_vad/data/$f" "$SCRATCH/real/6.0.0/silero_vad/data/$f"
  pair "$f 6.0.0 → 6.2.3" "$SCRATCH/real/6.0.0/silero_vad/data/$f" "$SCRATCH/real/6.2.3/silero_vad/data/$f"
done

echo; echo "== generated fine-tunes: $WEIGHTS weights ~ N(0, 0.05), w·(1 + N(0, r))"
python3 Benchmarks/transfer/finetune.py "$SCRATCH/gen" "$WEIGHTS" f32,f16 1e-3 1e-2
header
for d in f32 f16; do
  for r in 1e-3 1e-2; do pair "$d r=$r" "$SCRATCH/gen/base-$d.bin" "$SCRATCH/gen/tuned-$r-$d.bin"; done
done

# unpack NAME FILE [BASE]: decodes FILE into the scratch, prints a row with MB/s per core and peak RSS
unpack() {
  local name=$1 file=$2 base=${3:-}
  /usr/bin/time -f '%e %U %S %M' -o "$SCRATCH/time" "$ctl" unpack "$file" --output "$SCRATCH/out/decoded" ${base:+--base "$base"} >/dev/null
  read -r wall user sys rss <"$SCRATCH/time"
  python3 -c 'import sys; n, w, u, s, r = sys.argv[2:]; size = int(n)
print(f"| {sys.argv[1]} | {size:,} | {size / 1e6 / (float(u) + float(s)):.0f} | {size / 1e6 / float(w):.0f} | {int(r) / 1024:.1f} |")' \
    "$name" "$(stat -c %s "$SCRATCH/out/decoded")" "$wall" "$user" "$sys" "$rss"
  rm -f "$SCRATCH/out/decoded"
}
echo; echo "== decoding (modelctl unpack: read, inflate, join planes, XOR, SHA-256 per block and whole, write)"
echo "| what | decoded bytes | MB/s per core (user+sys) | MB/s wall | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|"
for d in f32 f16; do
  "$ctl" pack "$SCRATCH/gen/tuned-1e-3-$d.bin" --output "$SCRATCH/out/$d.pack" >/dev/null
  "$ctl" patch "$SCRATCH/gen/base-$d.bin" "$SCRATCH/gen/tuned-1e-3-$d.bin" --output "$SCRATCH/out/$d.patch" >/dev/null
  unpack "$d pack" "$SCRATCH/out/$d.pack"
  unpack "$d patch r=1e-3" "$SCRATCH/out/$d.patch" "$SCRATCH/gen/base-$d.bin"
  rm -f "$SCRATCH/out/$d.pack" "$SCRATCH/out/$d.patch"
done

if (( BIG_GIB > 0 )); then
  rm -rf "$SCRATCH/gen"; mkdir -p "$SCRATCH/big"
  python3 Benchmarks/transfer/finetune.py "$SCRATCH/big" $((BIG_GIB << 28)) f32 1e-3
  t0=$(date +%s.%N)
  "$ctl" patch "$SCRATCH/big/base-f32.bin" "$SCRATCH/big/tuned-1e-3-f32.bin" --output "$SCRATCH/out/big.patch" --json
  t1=$(date +%s.%N)
  echo "(patch of $BIG_GIB GiB made in $(python3 -c "print(round($t1 - $t0))") s)"
  unpack "$BIG_GIB GiB f32 patch r=1e-3" "$SCRATCH/out/big.patch" "$SCRATCH/big/base-f32.bin"
  rm -rf "$SCRATCH/big" "$SCRATCH/out/big.patch"
fi
