#!/usr/bin/env bash
# Tensor-aware transfer (issue #30, SPEC §16). Not a test: prints figures, one run per table.
#   1. Real models: public float weights from PyPI (README.md names them), pairs of releases.
#   2. Generated fine-tunes (finetune.py): float32 and float16, relative change 1e-3 and 1e-2.
#   For each pair, the bytes a device would fetch as a share of the new file: full, chunk delta
#   (`modelctl delta`, SPEC §14), pack (`modelctl pack`), patch (`modelctl patch`), and the time
#   to make the pack and the patch (release build, one core).
#   3. Decoding speed of the generated packs and patches (r = 1e-3), MB of output per second of
#      CPU (per core): in memory (pack-decode-bench: the decoder with its checks, the two SHA-256
#      passes alone, and zlib inflating the same output as one stream), and files
#      (`modelctl unpack` into tmpfs, beside `gzip -dc` of the same output).
#   4. Update time (CLIENT_MIB, 256; 0 skips): a float32 fine-tune pair (r = 1e-3) published
#      through a release modeld, its pack and patch derived (below, derive); one modeld-client
#      cache holding the base updated to the fine-tune by patch, and again forced to the full
#      file (the client's partial/<id>.full-only marker), unthrottled and through a LINK_MBIT
#      (100) Mbit/s link (Benchmarks/link.sh): method, bytes_fetched, wall, user+sys, peak RSS.
#   5. BIG_GIB (4) GiB float32 fine-tune, published the same way (scratch on disk): peak RSS
#      and CPU of `modelctl unpack` of the derived patch, and of modeld-client updating a cache
#      holding the base by that patch (/usr/bin/time). BIG_GIB=0 skips it.
#   6. A PUBLISH_GIB (1) GiB float32 publish through modeld + modelctl of this checkout and of
#      AB_REV (default: main), built side by side (Benchmarks/ab-base.sh), interleaved, 3 each;
#      AB_BIN=DIR takes the base's binaries from DIR instead (its modelctl, else this
#      checkout's); PUBLISH_GIB=0 skips it. SPEC §16: ≤ 1.6× the base's (v4's) time.
# Scratch in $SCRATCH, never the repo, removed at the end; the decoded outputs in /dev/shm.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=${SCRATCH:-/tmp/modeld-bench-transfer}
SHM=/dev/shm/modeld-bench-transfer-$$
WEIGHTS=${WEIGHTS:-16777216}   # per generated file: 64 MiB of float32, 32 MiB of float16
CLIENT_MIB=${CLIENT_MIB:-256}
LINK_MBIT=${LINK_MBIT:-100}
BIG_GIB=${BIG_GIB:-4}
PUBLISH_GIB=${PUBLISH_GIB:-1}
AB_REV=${AB_REV:-main}
PORT=${PORT:-18890}
bash scripts/install-deps.sh time gzip curl nginx >/dev/null
for product in modelctl pack-decode-bench modeld modeld-client; do swift build -c release --product $product >/dev/null; done
bin="$(swift build -c release --show-bin-path)"
ctl="$bin/modelctl"
bench="$bin/pack-decode-bench"
base_bin=${AB_BIN:-}
if (( PUBLISH_GIB > 0 )) && [[ -z $base_bin ]]; then
  # shellcheck source=Benchmarks/ab-base.sh
  source Benchmarks/ab-base.sh
  base_bin=$(ab_base_bin "$PWD" "$AB_REV" "-c release" modeld modelctl)
fi
rm -rf "$SCRATCH" "$SHM"; mkdir -p "$SCRATCH/real" "$SCRATCH/gen" "$SCRATCH/out" "$SHM"
pids=()
link_dir=""
# shellcheck source=Benchmarks/link.sh
source Benchmarks/link.sh
trap '[[ -z $link_dir ]] || link_stop "$link_dir"; for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
  rm -rf "$SHM" "$SCRATCH"' EXIT

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

# cpu CMD…: runs CMD three times under /usr/bin/time; prints the least user+sys seconds and
# the peak RSS (KiB) of that run. CPU seconds, not wall: the machine is shared.
cpu() {
  local best="" rss="" u s m
  for _ in 1 2 3; do
    /usr/bin/time -f '%U %S %M' -o "$SCRATCH/time" "$@" >/dev/null
    read -r u s m <"$SCRATCH/time"
    if [[ -z $best ]] || python3 -c "import sys; sys.exit(not ($u + $s < $best))"; then best=$(python3 -c "print($u + $s)"); rss=$m; fi
  done
  echo "$best $rss"
}
mbs() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e6 / max(float(sys.argv[2]), 0.005):.0f}')" "$1" "$2"; }
# unpack NAME FILE REFERENCE [BASE]: decodes FILE into tmpfs (checked against REFERENCE), and
# the same output through gzip -dc
unpack() {
  local name=$1 file=$2 reference=$3 base=${4:-} size ours rss peer
  size=$(stat -c %s "$reference")
  read -r ours rss < <(cpu "$ctl" unpack "$file" --output "$SHM/decoded" ${base:+--base "$base"})
  cmp -s "$SHM/decoded" "$reference" || { echo "$name: decoded file differs" >&2; exit 1; }
  gzip -6 -c "$reference" >"$SCRATCH/out/reference.gz"
  read -r peer _ < <(cpu sh -c "gzip -dc '$SCRATCH/out/reference.gz' >'$SHM/peer'")
  echo "| $name | $(python3 -c "print(f'{$size:,}')") | $(mbs "$size" "$ours") | $(mbs "$size" "$peer") | $(python3 -c "print(f'{$rss / 1024:.1f}')") |" >>"$SCRATCH/unpack.md"
  rm -f "$SHM/decoded" "$SHM/peer" "$SCRATCH/out/reference.gz"
}
echo; echo "== decoding in memory (pack-decode-bench), MB of output per CPU second, best of 3"
echo "| what | decoded bytes | coded bytes | MDPACK1 decode, every block and the whole file checked | SHA-256 ×2 alone (the checks) | decode less the hashing | zlib inflate of the same output (deflate -6, its ratio) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
: >"$SCRATCH/unpack.md"
for d in f32 f16; do
  "$ctl" pack "$SCRATCH/gen/tuned-1e-3-$d.bin" --output "$SCRATCH/out/$d.pack" >/dev/null
  "$ctl" patch "$SCRATCH/gen/base-$d.bin" "$SCRATCH/gen/tuned-1e-3-$d.bin" --output "$SCRATCH/out/$d.patch" >/dev/null
  "$bench" "$d pack" "$SCRATCH/out/$d.pack"
  "$bench" "$d patch r=1e-3" "$SCRATCH/out/$d.patch" "$SCRATCH/gen/base-$d.bin"
  unpack "$d pack" "$SCRATCH/out/$d.pack" "$SCRATCH/gen/tuned-1e-3-$d.bin"
  unpack "$d patch r=1e-3" "$SCRATCH/out/$d.patch" "$SCRATCH/gen/tuned-1e-3-$d.bin" "$SCRATCH/gen/base-$d.bin"
  rm -f "$SCRATCH/out/$d.pack" "$SCRATCH/out/$d.patch"
done
echo; echo "== decoding files, MB of output per CPU second (user + sys), best of 3, the output in tmpfs"
echo "| what | decoded bytes | modelctl unpack (read, decode, checks, write) | gzip -dc of the same output (gzip -6) | unpack peak RSS MiB |"
echo "|---|---:|---:|---:|---:|"
cat "$SCRATCH/unpack.md"

# start BIN PORT NAME [URL]: a modeld of its own in $SCRATCH/NAME, as shipped (packs and patches
# derived in the background after the answer, unless MODELD_PACK_AT_PUBLISH=false), its answers
# pointing at URL (default: itself)
start() {
  mkdir -p "$SCRATCH/$3/models" "$SCRATCH/$3/data"
  MODELD_ADMIN_TOKEN=bench MODELD_ACCESS_LOG=off "$1/modeld" --listen "127.0.0.1:$2" --models-dir "$SCRATCH/$3/models" \
    --data-dir "$SCRATCH/$3/data" --public-base-url "${4:-http://127.0.0.1:$2}" --instance-id "$3" >"$SCRATCH/$3.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$2/healthz" >/dev/null && return; sleep 0.1; done
  echo "modeld $3 did not start: $(cat "$SCRATCH/$3.log")" >&2; exit 1
}
stop_all() {   # the modelds started and the link
  [[ -z $link_dir ]] || link_stop "$link_dir"; link_dir=""
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
  pids=()
}

# The client sections: one modeld on CPORT behind the link (nginx on LPORT, which its answers
# name), unthrottled unless a pass says otherwise. Its packs and patches are derived by
# `modelctl packs derive` on its models directory, the same pass its worker makes: the worker
# runs at SCHED_IDLE, and on a shared machine it starves (a 1 GiB pack went 11 MB in 3 minutes
# beside a build), so the script does it in the foreground, timed, and the server serves them.
CPORT=$((PORT + 2)) LPORT=$((PORT + 3))
link_url="http://127.0.0.1:$LPORT"
serve() {   # serve NAME: that modeld and the link, fresh
  MODELD_PACK_AT_PUBLISH=false start "$bin" "$CPORT" "$1" "$link_url"
  link_dir=$SCRATCH/$1; link_start "$link_dir" "$CPORT" "$LPORT" 0
}
derive() {   # derive NAME: packs and patches of NAME's models; sets derived to its wall and CPU
  /usr/bin/time -f '%e %U %S' -o "$SCRATCH/time" "$ctl" packs derive --models-dir "$SCRATCH/$1/models" >"$SCRATCH/derive.log"
  local wall user sys
  read -r wall user sys <"$SCRATCH/time"
  derived="$wall s wall, $(python3 -c "print(f'{$user + $sys:.1f}')") s CPU"
}
relink() { link_stop "$link_dir"; link_start "$link_dir" "$CPORT" "$LPORT" "$1"; }   # relink MBIT
publish() {   # publish FILE: sets published_id and published_name (its file under models/)
  local answer
  answer=$(MODELD_ADMIN_TOKEN=bench "$ctl" publish "$1" --sdk-min 1.0 --server "http://127.0.0.1:$CPORT" --json)
  read -r published_id published_name < <(python3 -c 'import json,sys; a = json.loads(sys.argv[1]); print(a["id"], a["url"].rsplit("/", 1)[1])' "$answer")
}
# await_patch ID BASE_ID: waits (bounded: 60 s) until /latest offers ID's patch from BASE_ID
await_patch() {
  local t0 now
  t0=$(date +%s)
  until curl -fs "http://127.0.0.1:$CPORT/latest?sdk=1.0" | python3 -c '
import json, sys
a = json.load(sys.stdin)
sys.exit(not (a.get("id") == sys.argv[1] and any(p["from"] == sys.argv[2] for p in a.get("patches", []))))' "$1" "$2"; do
    now=$(date +%s)
    (( now - t0 < 60 )) || { echo "no patch from $2 after 60 s" >&2; exit 1; }
    sleep 1
  done
}
# update CACHE: modeld-client updates CACHE; sets updated to its method, bytes_fetched, wall s,
# user+sys s and peak RSS MiB (/usr/bin/time: %M is -v's "Maximum resident set size")
update() {
  sync   # no dirty pages of the run before
  /usr/bin/time -f '%e %U %S %M' -o "$SCRATCH/time" "$bin/modeld-client" --server "$link_url" --sdk 1.0 --cache "$1" \
    --json update >"$SCRATCH/update.json" 2>"$SCRATCH/client.log" || { cat "$SCRATCH/client.log" >&2; return 1; }
  updated=$(python3 - "$SCRATCH/update.json" "$SCRATCH/time" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
wall, user, sys_, rss = open(sys.argv[2]).read().split()
print(a["method"], a["bytes_fetched"], wall, f"{float(user) + float(sys_):.2f}", f"{int(rss) / 1024:.1f}")
PY
)
}
row() {   # row WHAT LINK METHOD BYTES WALL CPU RSS
  python3 -c 'import sys; w, l, m, b, t, c, r = sys.argv[1:]; print(f"| {w} | {l} | {m} | {int(b):,} | {t} | {c} | {r} |")' "$@"
}
row_header() {
  echo "| update | link | method | bytes_fetched | wall, s | user+sys, s | peak RSS MiB |"
  echo "|---|---|---|---:|---:|---:|---:|"
}

if (( CLIENT_MIB > 0 )); then
  echo; echo "== update time: a $CLIENT_MIB MiB float32 fine-tune (r = 1e-3), patch vs full, modeld-client (release)"
  rm -rf "$SCRATCH/gen"; mkdir -p "$SCRATCH/upd/w"
  python3 Benchmarks/transfer/finetune.py "$SCRATCH/upd/w" $((CLIENT_MIB << 18)) f32 1e-3
  serve upd
  publish "$SCRATCH/upd/w/base-f32.bin"; base_id=$published_id
  derive upd
  update "$SCRATCH/upd/cache-base"
  publish "$SCRATCH/upd/w/tuned-1e-3-f32.bin"; tuned_id=$published_id tuned_name=$published_name
  derive upd
  await_patch "$tuned_id" "$base_id"
  patch_size=$(stat -c %s "$SCRATCH/upd/models/$tuned_name.from-$base_id.patch")
  echo "(patch $patch_size bytes = $(python3 -c "print(f'{$patch_size / $((CLIENT_MIB << 20)):.3f}')")× of $((CLIENT_MIB << 20)); the fine-tune's pack and patch derived in $derived)"
  row_header
  for mbit in 0 "$LINK_MBIT"; do
    relink "$mbit"
    link="unthrottled (nginx, loopback)"; (( mbit == 0 )) || link="$mbit Mbit/s"
    for way in patch full; do
      rm -rf "$SCRATCH/upd/cache"; cp -a "$SCRATCH/upd/cache-base" "$SCRATCH/upd/cache"
      if [[ $way == full ]]; then
        for channel in "$SCRATCH/upd/cache/channels"/*/; do mkdir -p "$channel/partial"; echo bench >"$channel/partial/$tuned_id.full-only"; done
      fi
      update "$SCRATCH/upd/cache"; read -r method bytes wall cpu_s rss <<<"$updated"
      [[ $method == "$way" ]] || { echo "asked for $way, the client took $method" >&2; exit 1; }
      row "base → fine-tune" "$link" "$method" "$bytes" "$wall" "$cpu_s" "$rss"
    done
  done
  stop_all; rm -rf "$SCRATCH/upd"
fi

if (( BIG_GIB > 0 )); then
  echo; echo "== a $BIG_GIB GiB float32 fine-tune (r = 1e-3) published through modeld, decoded by modelctl and by modeld-client (scratch on disk)"
  rm -rf "$SCRATCH/gen"; mkdir -p "$SCRATCH/big/w"
  python3 Benchmarks/transfer/finetune.py "$SCRATCH/big/w" $((BIG_GIB << 28)) f32 1e-3
  serve big
  publish "$SCRATCH/big/w/base-f32.bin"; base_id=$published_id base_name=$published_name
  rm "$SCRATCH/big/w/base-f32.bin"   # the server's copy is the base from here on
  derive big
  update "$SCRATCH/big/cache"
  publish "$SCRATCH/big/w/tuned-1e-3-f32.bin"; tuned_id=$published_id tuned_name=$published_name
  rm "$SCRATCH/big/w/tuned-1e-3-f32.bin"
  derive big
  await_patch "$tuned_id" "$base_id"
  patch="$SCRATCH/big/models/$tuned_name.from-$base_id.patch"
  echo "(the fine-tune's pack and patch derived in $derived)"
  /usr/bin/time -f '%e %U %S %M' -o "$SCRATCH/time" "$ctl" unpack "$patch" --base "$SCRATCH/big/models/$base_name" \
    --output "$SCRATCH/big/decoded.bin" >/dev/null
  read -r wall user sys rss <"$SCRATCH/time"
  size=$(stat -c %s "$SCRATCH/big/decoded.bin")
  rm "$SCRATCH/big/decoded.bin"
  echo "| what | decoded bytes | coded bytes | MB/s per CPU second | wall, s | peak RSS MiB |"
  echo "|---|---:|---:|---:|---:|---:|"
  echo "| $BIG_GIB GiB f32 patch r=1e-3, modelctl unpack to disk | $size | $(stat -c %s "$patch") | $(mbs "$size" "$(python3 -c "print($user + $sys)")") | $wall | $(python3 -c "print(f'{$rss / 1024:.1f}')") |"
  echo
  row_header
  update "$SCRATCH/big/cache"; read -r method bytes wall cpu_s rss <<<"$updated"
  row "$BIG_GIB GiB base → fine-tune" "unthrottled (nginx, loopback)" "$method" "$bytes" "$wall" "$cpu_s" "$rss"
  stop_all; rm -rf "$SCRATCH/big"
fi

if (( PUBLISH_GIB > 0 )); then
  base_name=${AB_BIN:+$AB_BIN}
  echo; echo "== $PUBLISH_GIB GiB float32 publish: this checkout vs ${base_name:-$AB_REV ($(git rev-parse --short "$AB_REV"))}, interleaved, 3 each"
  base_ctl=$base_bin/modelctl
  [[ -x $base_ctl ]] || base_ctl=$ctl
  rm -rf "$SCRATCH/gen"; mkdir -p "$SCRATCH/pub"
  python3 Benchmarks/transfer/finetune.py "$SCRATCH/pub" $((PUBLISH_GIB << 28)) f32 1e-3
  file="$SCRATCH/pub/tuned-1e-3-f32.bin"
  rm -f "$SCRATCH/pub/base-f32.bin"
  start "$bin" "$PORT" this
  start "$base_bin" $((PORT + 1)) base
  cat "$file" >/dev/null   # page cache warm for both sides
  times_this=(); times_base=()
  for _ in 1 2 3; do
    for side in this base; do
      c=$ctl; p=$PORT
      [[ $side == base ]] && { c=$base_ctl; p=$((PORT + 1)); }
      s=$(date +%s.%N)
      MODELD_ADMIN_TOKEN=bench "$c" publish "$file" --sdk-min 1.0 --server "http://127.0.0.1:$p" --json >/dev/null
      e=$(date +%s.%N)
      t=$(python3 -c "print(f'{$e - $s:.2f}')")
      if [[ $side == this ]]; then times_this+=("$t"); else times_base+=("$t"); fi
    done
  done
  python3 - "${times_this[*]}" "${times_base[*]}" <<'PY'
import statistics, sys
this, base = ([float(x) for x in a.split()] for a in sys.argv[1:3])
print("| build | runs, s (wall) | median, s |")
print("|---|---|---:|")
print(f"| this checkout | {', '.join(map(str, this))} | {statistics.median(this):.2f} |")
print(f"| base | {', '.join(map(str, base))} | {statistics.median(base):.2f} |")
print(f"ratio of medians: {statistics.median(this) / statistics.median(base):.2f}× (SPEC §16 target ≤ 1.6×)")
PY
fi
