#!/usr/bin/env bash
# `modelctl mirror` vs the AWS CLI, side by side on the same data, to the same Ceph RGW on
# loopback (issue #13: ≥ 1.0× the AWS CLI's throughput; modelctl peak RSS < 64 MiB while
# mirroring a 4 GiB file). Not a test: prints figures, which need a quiet machine (RGW, the
# uploader and its hashing share the 2 cores).
#   1. one BIG file (default 1 GiB):            modelctl mirror  vs  aws s3 cp
#   2. SMALL_COUNT files of SMALL_BYTES (1,000 × 1 MB): modelctl mirror  vs  aws s3 sync
#   3. one HUGE file (default 4 GiB + 1 MiB): modelctl mirror under /usr/bin/time -v (peak RSS)
# Each side uploads to a fresh prefix; the two sides alternate who goes first, RUNS rounds.
# Both commands are timed end to end (start-up, listing/HEADs, uploads). The AWS CLI runs with
# its defaults (8 MiB parts, 10 concurrent requests), from PyPI in a venv.
#
#   Benchmarks/mirror.sh                     BIG_BYTES=1073741824 SMALL_COUNT=1000 SMALL_BYTES=1000000
#                                            HUGE_BYTES=4294967296 RUNS=1
#   BUILD=debug BIG_BYTES=67108864 SMALL_COUNT=40 HUGE_BYTES=268435456 Benchmarks/mirror.sh   smoke run
#   BENCH_ROOT=/tmp/modeld-bench             scratch (sources, models dirs, RGW data, the venv)
#   MIRROR_ARGS="--part-size 16MiB"          extra `modelctl mirror` options (to compare settings)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${BENCH_ROOT:-/tmp/modeld-bench}/mirror
VENV=${BENCH_ROOT:-/tmp/modeld-bench}/awscli-venv
BIG_BYTES=${BIG_BYTES:-1073741824} SMALL_COUNT=${SMALL_COUNT:-1000} SMALL_BYTES=${SMALL_BYTES:-1000000}
HUGE_BYTES=${HUGE_BYTES:-4294967296} RUNS=${RUNS:-1} BUILD=${BUILD:-release} MIRROR_ARGS=${MIRROR_ARGS:-}
export PATH="/opt/swift/usr/bin:$PATH"
die() { echo "Benchmarks/mirror.sh: $*" >&2; exit 1; }

bash "$REPO/scripts/install-deps.sh" time curl python3 radosgw ceph-mon ceph-osd >/dev/null
if [[ ! -x $VENV/bin/aws ]]; then
  echo "== pip install awscli into $VENV" >&2
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q awscli >&2
fi
AWS=$VENV/bin/aws
if [[ $BUILD == release ]]; then
  echo "== swift build -c release --product modelctl" >&2
  (cd "$REPO" && swift build -c release --product modelctl >&2)
fi
BIN=$(cd "$REPO" && swift build -c "$BUILD" --show-bin-path)
MODELCTL=$BIN/modelctl
[[ -x $MODELCTL ]] || die "$MODELCTL missing (swift build -c $BUILD --product modelctl)"

rm -rf "$ROOT"; mkdir -p "$ROOT"
need_kib=$(( (BIG_BYTES * 2 + SMALL_COUNT * SMALL_BYTES * 2 + HUGE_BYTES * 2) / 1024 + 1048576 ))
avail_kib=$(df -k --output=avail "$ROOT" | tail -1)
(( avail_kib > need_kib )) || die "need ~$((need_kib / 1048576)) GiB free in $ROOT, have $((avail_kib / 1048576)) GiB"

# memstore keeps objects in RAM, and RGW frees deleted ones only at garbage collection (run
# after every round); its capacity is only what the OSD reports, so make it ample.
RGW_MEMSTORE_BYTES=$(( (BIG_BYTES + SMALL_COUNT * SMALL_BYTES) * 2 + HUGE_BYTES + (1 << 30) )) \
  RGW_OWNER_PID=$$ bash "$REPO/scripts/rgw.sh" start "$ROOT/rgw" bench >/dev/null
trap 'bash "$REPO/scripts/rgw.sh" stop "$ROOT/rgw"' EXIT
set -a; . "$ROOT/rgw/env"; set +a
export AWS_CONFIG_FILE=$ROOT/aws-config AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_DEFAULT_REGION=us-east-1
# Path-style like modelctl's default for an IP endpoint. RGW 16.2 predates the CRC trailers
# (aws-chunked) that botocore ≥ 1.36 sends by default: checksums only where required.
printf '[default]\nregion = us-east-1\nrequest_checksum_calculation = when_required\nresponse_checksum_validation = when_required\ns3 =\n    addressing_style = path\n' >"$AWS_CONFIG_FILE"
aws() { "$AWS" --endpoint-url "$RGW_ENDPOINT" "$@"; }

# Models directories published offline, as an operator's; the AWS CLI gets the same files.
publish() { # DIR FILE
  "$MODELCTL" publish "$2" --sdk-min 1.0 --models-dir "$1" --public-base-url http://cdn.example --json >/dev/null
}
echo "== data: 1 × $BIG_BYTES B, $SMALL_COUNT × $SMALL_BYTES B, 1 × $HUGE_BYTES B + 1 MiB (published with modelctl)" >&2
head -c "$BIG_BYTES" /dev/urandom >"$ROOT/big.onnx"
publish "$ROOT/big-models" "$ROOT/big.onnx"; rm "$ROOT/big.onnx"
mkdir -p "$ROOT/small-src" "$ROOT/small-aws"
for i in $(seq 1 "$SMALL_COUNT"); do head -c "$SMALL_BYTES" /dev/urandom >"$ROOT/small-src/$i.onnx"; done
for i in $(seq 1 "$SMALL_COUNT"); do publish "$ROOT/small-models" "$ROOT/small-src/$i.onnx"; done
rm -r "$ROOT/small-src"
ln "$ROOT"/small-models/*.onnx "$ROOT/small-aws/"
big_file=$(ls "$ROOT"/big-models/*.onnx)

# Runs a command under /usr/bin/time (output kept in $ROOT); "seconds peak-RSS-KiB" go to $ROOT/time.
timed() { /usr/bin/time -f '%e %M' -o "$ROOT/time" "$@" >"$ROOT/out" 2>"$ROOT/err" || { cat "$ROOT/err" >&2; die "failed: $*"; }; }
side() { # SIDE CASE PREFIX: one timed upload by modelctl or the AWS CLI
  case $1/$2 in
    modelctl/big) timed "$MODELCTL" mirror --models-dir "$ROOT/big-models" --to "s3://bench/$3" --endpoint "$RGW_ENDPOINT" --json $MIRROR_ARGS ;;
    modelctl/small) timed "$MODELCTL" mirror --models-dir "$ROOT/small-models" --to "s3://bench/$3" --endpoint "$RGW_ENDPOINT" --json $MIRROR_ARGS ;;
    aws/big) timed "$AWS" --endpoint-url "$RGW_ENDPOINT" s3 cp --only-show-errors "$big_file" "s3://bench/$3/models/$(basename "$big_file")" ;;
    aws/small) timed "$AWS" --endpoint-url "$RGW_ENDPOINT" s3 sync --only-show-errors "$ROOT/small-aws" "s3://bench/$3/models" ;;
  esac
}
count() { aws s3 ls "s3://bench/$1/" --recursive | grep -c '\.onnx$' || true; }
clean() { # PREFIX... : delete, then let RGW free the memory now rather than in 2 h
  for p in "$@"; do aws s3 rm "s3://bench/$p/" --recursive --quiet; done
  timeout 120 radosgw-admin -c "$ROOT/rgw/ceph.conf" gc process --include-all >/dev/null 2>&1 || true
}

# RGW creates its data pool and warms up on the first writes (the first 8 MiB PUT took 1.3 s,
# the next 0.09 s): untimed uploads by both sides first, so neither pays for that.
head -c $((24 << 20)) /dev/urandom >"$ROOT/warm.onnx"
publish "$ROOT/warm-models" "$ROOT/warm.onnx"
"$MODELCTL" mirror --models-dir "$ROOT/warm-models" --to s3://bench/warm --endpoint "$RGW_ENDPOINT" --multipart-threshold 8MiB >/dev/null
aws s3 cp --only-show-errors "$ROOT/warm.onnx" s3://bench/warm-aws/warm.onnx
clean warm warm-aws

results=()
echo "== $RUNS round(s), modelctl ($BUILD) vs aws-cli $("$AWS" --version 2>&1 | cut -d' ' -f1); load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$RUNS"); do
  sides=(modelctl aws); (( r % 2 == 0 )) && sides=(aws modelctl)
  row=()
  for case in big small; do
    want=1; [[ $case == small ]] && want=$SMALL_COUNT
    for s in "${sides[@]}"; do
      cat "$big_file" "$ROOT"/small-aws/*.onnx >/dev/null   # page cache warm for both sides
      side "$s" "$case" "r$r-$s-$case"
      read -r "${s}_secs" "${s}_kib" <"$ROOT/time"
      [[ $(count "r$r-$s-$case") == "$want" ]] || die "round $r: $s did not put $want $case file(s) in the bucket"
    done
    clean "r$r-modelctl-$case" "r$r-aws-$case"
    echo "round $r, $case: modelctl ${modelctl_secs} s, aws ${aws_secs} s" >&2
    row+=("$modelctl_secs" "$aws_secs" "$modelctl_kib" "$aws_kib")
  done
  results+=("${row[*]}")
done

echo "== HUGE: $HUGE_BYTES B + 1 MiB (sparse, random tail), modelctl mirror under /usr/bin/time -v" >&2
truncate -s "$HUGE_BYTES" "$ROOT/huge.onnx"; head -c 1048576 /dev/urandom >>"$ROOT/huge.onnx"
publish "$ROOT/huge-models" "$ROOT/huge.onnx"; rm "$ROOT/huge.onnx"
/usr/bin/time -v -o "$ROOT/huge-time" "$MODELCTL" mirror --models-dir "$ROOT/huge-models" --to s3://bench/huge \
  --endpoint "$RGW_ENDPOINT" --json $MIRROR_ARGS >"$ROOT/out" 2>"$ROOT/err" || { cat "$ROOT/err" >&2; die "huge mirror failed"; }
huge_k=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$ROOT/huge-time")
huge_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$ROOT/huge-time")
[[ $(count huge) == 1 ]] || die "the huge file is not in the bucket"

printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
big, count, small, huge, huge_k, huge_s, build = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
med = lambda i: statistics.median(r[i] for r in rows)
peak = lambda i: max(r[i] for r in rows) / 1024
mb_s, ab_s, ms_s, as_s = med(0), med(1), med(4), med(5)
print(f"| case (median of {len(rows)}, modelctl {build}) | modelctl MB/s | aws-cli MB/s | modelctl / aws | peak RSS modelctl / aws |")
print("|---|---:|---:|---:|---:|")
print(f"| 1 × {big / 2**20:,.0f} MiB (mirror vs s3 cp) | {big / 1e6 / mb_s:,.1f} | {big / 1e6 / ab_s:,.1f} | {ab_s / mb_s:.2f}x | {peak(2):.1f} / {peak(3):.1f} MiB |")
print(f"| {count:,} × {small:,} B (mirror vs s3 sync) | {count * small / 1e6 / ms_s:,.1f} | {count * small / 1e6 / as_s:,.1f} | {as_s / ms_s:.2f}x | {peak(6):.1f} / {peak(7):.1f} MiB |")
print(f"modelctl mirror of {huge / 2**30:.2f} GiB + 1 MiB: {huge_s} wall, peak RSS {huge_k / 1024:.1f} MiB (target < 64 MiB:", "met)" if huge_k < 65536 else "NOT met)")
print("throughput target modelctl / aws >= 1.0:", "met" if ab_s / mb_s >= 1 and as_s / ms_s >= 1 else "NOT met")
' "$BIG_BYTES" "$SMALL_COUNT" "$SMALL_BYTES" "$HUGE_BYTES" "$huge_k" "$huge_s" "$BUILD"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
