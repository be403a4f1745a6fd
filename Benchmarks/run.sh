#!/usr/bin/env bash
# modeld side by side with nginx (and Hummingbird with BENCH_SWIFT_PEERS=1), using the shared
# peer harness (../shared/bench: run-peers.sh, lib.sh, env.sh, make-data.sh). See README.md.
#
#   Benchmarks/run.sh                 RUNS=1 by default; DUR/WARM/PIN/PHASES go to run-peers.sh
#   RUNS=3 DUR=10 Benchmarks/run.sh   the shared README's protocol
#   WORKERS="1 2"                     modeld --workers values, one labelled run-peers.sh pass each
#   NGINX_PEERS="nginx-w1"            the nginx peer(s) in every pass (ratios are to the first)
#   BENCH_SWIFT_PEERS=1               also Hummingbird (builds a copy of ../shared/bench/peers/swift
#                                     under BENCH_ROOT: minutes)
#   BENCH_ROOT=/tmp/modeld-bench      all data (2+ GiB), models, results: never in the repository
#   BENCH_SHARED=/path/to/bench       the shared harness, when it cannot be found by walking up
#   LATENCY=only|1|0                  the latency pass (issue #10): nginx-w1 and modeld --workers 1
#                                     alternately, /latest at c50 and c256, req/s and p50/p99/p99.9;
#                                     only = skip the run-peers.sh passes (default 1: both) and
#                                     serve one 4 KiB release (no 1 GiB import)
#   AB_REV=<git rev>                  A/B: the latency pass also runs modeld built from that revision
#                                     (a detached worktree under AB_ROOT, Benchmarks/ab-base.sh: minutes),
#                                     "modeld-base", alternating with this checkout's modeld;
#                                     AB_ONLY=1 leaves the nginx peers out of that pass. Issue #35:
#                                     AB_REV=50cb358 LATENCY=only RUNS=3 Benchmarks/run.sh
#                                     (modeld, v4 and nginx interleaved, c50 and c256, release builds)
#   MODELD_ACCESS_LOG=off             passed to modeld (the nginx peer runs with access_log off);
#                                     with modeld's log on, the latency pass adds nginx-w1-log
#                                     (nginx with its default access log) and compares with it
#
# Every server is started and stopped by PID (run-peers.sh does its own; the import server here).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_ROOT=${BENCH_ROOT:-/tmp/modeld-bench}
RUNS=${RUNS:-1}
WORKERS=${WORKERS:-"1 2"}
NGINX_PEERS=${NGINX_PEERS:-nginx-w1}
export RUNS DUR=${DUR:-10} WARM=${WARM:-3} PIN=${PIN:-0}
[[ -n "${PHASES:-}" ]] && export PHASES

die() { echo "Benchmarks/run.sh: $*" >&2; exit 1; }

# --- the shared harness: $BENCH_SHARED, else <ancestor>/shared/bench walking up from the repo
# (the main checkout's ../shared/bench; a worktree deeper down finds the same one), else the
# main checkout of this worktree (git common dir) + ../shared/bench.
find_shared() {
  if [[ -n "${BENCH_SHARED:-}" ]]; then echo "$BENCH_SHARED"; return; fi
  local d=$REPO
  while [[ $d != / ]]; do
    d=$(dirname "$d")
    [[ -f $d/shared/bench/run-peers.sh ]] && { echo "$d/shared/bench"; return; }
  done
  local common; common=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
  [[ -n $common && -f $(dirname "$common")/../shared/bench/run-peers.sh ]] && { echo "$(cd "$(dirname "$common")/../shared/bench" && pwd)"; return; }
  echo ""
}
SHARED=$(find_shared)
[[ -n $SHARED && -f $SHARED/run-peers.sh && -f $SHARED/lib.sh && -f $SHARED/env.sh && -f $SHARED/make-data.sh ]] ||
  die "shared bench harness not found (looked for ../shared/bench above $REPO); set BENCH_SHARED=/path/to/bench"
SHARED=$(cd "$SHARED" && pwd)
# hyperfine only times the run-peers.sh passes' 1 GiB downloads
for tool in nginx wrk curl python3 swift $([[ ${LATENCY:-1} == only ]] || echo hyperfine); do
  command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install -y nginx wrk hyperfine curl)"
done

# --- scratch layout. nginx.conf names data/ and results/ relative to its prefix (BENCH_DIR),
# so BENCH_DIR is a scratch folder whose harness files link to the shared ones and whose
# data/ and results/ are here: nothing is written into the shared folder or the repository.
export DATA_DIR=$BENCH_ROOT/data RESULTS_DIR=$BENCH_ROOT/results
PREFIX=$BENCH_ROOT/prefix
mkdir -p "$DATA_DIR" "$RESULTS_DIR" "$PREFIX" "$BENCH_ROOT/modeld"
for f in env.sh lib.sh run-peers.sh summarize.py make-data.sh check-peers.sh rawhead.py wrk peers; do
  [[ -e $SHARED/$f ]] && ln -sfn "$SHARED/$f" "$PREFIX/$f"
done
ln -sfn "$DATA_DIR" "$PREFIX/data"
ln -sfn "$RESULTS_DIR" "$PREFIX/results"
export BENCH_DIR=$PREFIX
# shellcheck source=/dev/null
source "$SHARED/env.sh"   # MODEL_1G_ID, MODEL_64M_ID, ports (BENCH_DIR and DATA_DIR as set above)

echo "== shared harness: $SHARED; data and results: $BENCH_ROOT; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- build
echo "== swift build -c release (modeld, modelctl)" >&2
(cd "$REPO" && swift build -c release --product modeld >&2 && swift build -c release --product modelctl >&2)
BIN=$(cd "$REPO" && swift build -c release --show-bin-path)
[[ -x $BIN/modeld && -x $BIN/modelctl ]] || die "release binaries missing in $BIN"
BASE_BIN=""
if [[ -n "${AB_REV:-}" ]]; then
  # shellcheck source=Benchmarks/ab-base.sh
  source "$REPO/Benchmarks/ab-base.sh"
  BASE_BIN=$(ab_base_bin "$REPO" "$AB_REV" "-c release" modeld)/modeld || die "A/B base build failed"
fi
SERVERS_SWIFT=""
if [[ "${BENCH_SWIFT_PEERS:-0}" == 1 ]]; then
  # The shared folder may be read-only: build a copy of the peers' package under BENCH_ROOT.
  PEERS_SRC=$BENCH_ROOT/peers-swift
  echo "== swift build -c release in $PEERS_SRC (copy of $SHARED/peers/swift; Hummingbird peer; takes minutes)" >&2
  mkdir -p "$PEERS_SRC"
  cp -R "$SHARED/peers/swift/Package.swift" "$SHARED/peers/swift/Sources" "$PEERS_SRC/"
  chmod -R u+w "$PEERS_SRC"
  (cd "$PEERS_SRC" && swift build -c release --product PeerHummingbird >&2)
  export SWIFT_PEERS_BIN=$PEERS_SRC/.build/release
  SERVERS_SWIFT="hummingbird"
fi

# --- data: latest.json and the two random model files (kept between runs)
echo "== make-data.sh" >&2
"$SHARED/make-data.sh" >&2

# --- modeld's models directory. The run-peers.sh passes serve the two bench files under the
# env.sh ids; the 64 MiB one goes to channel "bench" so that /latest?sdk=2.3 (stable) answers
# with the 1 GiB release. The latency pass alone (LATENCY=only) needs one release: a 4 KiB
# file in a directory of its own (no 1 GiB import; the same catalog for every modeld build).
# RELEASES: one "id size channel" line per release, published in this order.
LATENCY=${LATENCY:-1}
MODEL_4K_ID=${MODEL_4K_ID:-4c0d7a52-1e3b-4f6a-8b2d-9e5f1a7c3b40}
if [[ $LATENCY == only ]]; then
  MODELS=$BENCH_ROOT/modeld/models-4k
  RELEASES="$MODEL_4K_ID 4096 stable"
  f=$DATA_DIR/models/$MODEL_4K_ID.bin
  [[ -f $f && $(stat -c %s "$f") == 4096 ]] || head -c 4096 /dev/urandom >"$f"
else
  MODELS=$BENCH_ROOT/modeld/models
  RELEASES="$MODEL_64M_ID $SIZE_64M bench
$MODEL_1G_ID $SIZE_1G stable"
fi
LATEST_ID=$(awk '$3 == "stable" {id = $1} END {print id}' <<<"$RELEASES")  # what /latest?sdk=2.3 names
has_release() { [[ -f $MODELS/catalog.json && -f $MODELS/$1.bin ]] && grep -q "\"$1\"" "$MODELS/catalog.json" &&
  [[ $(stat -c %s "$MODELS/$1.bin") == "$2" ]]; }
has_all=1
while read -r id size _; do has_release "$id" "$size" || has_all=0; done <<<"$RELEASES"
if [[ $has_all == 1 ]]; then
  echo "== models already imported in $MODELS" >&2
else
  echo "== importing the bench files into $MODELS through a temporary modeld + modelctl publish --id" >&2
  rm -rf "$MODELS"; mkdir -p "$MODELS"
  IMPORT_PORT=${IMPORT_PORT:-18093} TOKEN=bench-import-$$
  ss -Hltn "sport = :$IMPORT_PORT" | grep -q . && die "port $IMPORT_PORT busy (set IMPORT_PORT)"
  # cwd has no config/modeld.json: defaults + these flags (access log in import-data/).
  (cd "$BENCH_ROOT" && MODELD_ADMIN_TOKEN=$TOKEN exec "$BIN/modeld" --listen "127.0.0.1:$IMPORT_PORT" --models-dir "$MODELS" \
    --data-dir "$BENCH_ROOT/modeld/import-data" --public-base-url "http://127.0.0.1:$PORT_CUSTOM") \
    >"$BENCH_ROOT/modeld/import.log" 2>&1 &
  IMPORT_PID=$!
  trap 'kill -TERM "$IMPORT_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$IMPORT_PORT/healthz") == 200 ]] && break
    kill -0 "$IMPORT_PID" 2>/dev/null || die "import modeld exited; see $BENCH_ROOT/modeld/import.log"
    sleep 0.1
  done
  # The release ext comes from the file name (<id>.bin).
  while read -r id _ channel; do
    "$BIN/modelctl" publish "$DATA_DIR/models/$id.bin" --id "$id" --sdk-min 1.0 --label bench --channel "$channel" \
      --server "http://127.0.0.1:$IMPORT_PORT" --token "$TOKEN" </dev/null >&2 || die "modelctl publish $id failed"
  done <<<"$RELEASES"
  got=$(curl -s --max-time 5 "http://127.0.0.1:$IMPORT_PORT/latest?sdk=2.3")
  [[ $got == *"$LATEST_ID"* ]] || die "/latest?sdk=2.3 does not name release $LATEST_ID: $got"
  kill -TERM "$IMPORT_PID"; wait "$IMPORT_PID" 2>/dev/null || true; trap - EXIT
fi

# --- the passes: modeld with --workers W next to nginx (and Hummingbird), one label each
STAMP=$(date -u +%Y%m%d-%H%M%S)
LABELS=()
[[ $LATENCY == only ]] && WORKERS=""
for w in $WORKERS; do
  label="modeld-w$w-$STAMP"
  LABELS+=("$label")
  echo "== pass: modeld --workers $w  (label $label, RUNS=$RUNS DUR=$DUR)  load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  mkdir -p "$BENCH_ROOT/modeld/data-w$w"
  CUSTOM_NAME="modeld-w$w" \
  CUSTOM_CMD="$BIN/modeld --listen 127.0.0.1:{PORT} --models-dir $MODELS --data-dir $BENCH_ROOT/modeld/data-w$w --workers $w --public-base-url http://127.0.0.1:{PORT}" \
  SERVERS="$NGINX_PEERS $SERVERS_SWIFT custom" LABEL="$label" \
    "$SHARED/run-peers.sh" || die "run-peers.sh failed for workers=$w"
done

# --- the latency pass: one wrk -t1 run per (round, server, connections), servers alternating
# within a round so drift hits both; medians over rounds with ratios to nginx.
if [[ $LATENCY != 0 ]]; then
  # shellcheck source=/dev/null
  source "$SHARED/lib.sh"
  trap 'stop_peer || true' EXIT
  LAT=$RESULTS_DIR/latency-$STAMP.tsv; : >"$LAT"
  MODELD_CMD="$BIN/modeld --listen 127.0.0.1:{PORT} --models-dir $MODELS --data-dir $BENCH_ROOT/modeld/data-w1 --workers 1 --public-base-url http://127.0.0.1:{PORT}"
  mkdir -p "$BENCH_ROOT/modeld/data-w1" "$BENCH_ROOT/modeld/data-base-w1"
  # With modeld's access log on (its default), nginx also runs with its default access log
  # (combined format, one write per request) as a like-for-like peer, "nginx-w1-log": a copy of
  # the shared config with only access_log and the port changed, started as the custom peer.
  PEERS="nginx-w1 modeld"
  if [[ ${MODELD_ACCESS_LOG:-on} != off ]]; then
    sed -e "s|access_log off;|access_log results/nginx-access.log;|" -e "s|listen 127.0.0.1:$PORT_NGINX |listen 127.0.0.1:$PORT_CUSTOM |" \
      "$SHARED/peers/nginx.conf" >"$PREFIX/nginx-log.conf"
    grep -q "access_log results/nginx-access.log;" "$PREFIX/nginx-log.conf" && grep -q "listen 127.0.0.1:$PORT_CUSTOM " "$PREFIX/nginx-log.conf" ||
      die "could not derive the logging nginx config from $SHARED/peers/nginx.conf"
    PEERS="nginx-w1 nginx-log modeld"
  fi
  [[ -n $BASE_BIN ]] && PEERS="$PEERS modeld-base"
  # AB_ONLY=1: just the two modeld builds, more rounds in the same time
  [[ -n $BASE_BIN && ${AB_ONLY:-0} == 1 ]] && PEERS="modeld modeld-base"
  echo "== latency pass: RUNS=$RUNS DUR=$DUR, access log ${MODELD_ACCESS_LOG:-on (default)}; peers: $PEERS; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for run in $(seq 1 "$RUNS"); do
    for peer in $PEERS; do
      s=custom
      case $peer in
        nginx-w1) s=nginx-w1 ;;
        nginx-log) export CUSTOM_NAME=nginx-w1-log CUSTOM_CMD="nginx -p $PREFIX/ -c $PREFIX/nginx-log.conf -e results/nginx-error.log -g 'worker_processes 1;'"
                   rm -f "$RESULTS_DIR/nginx-access.log" ;;
        modeld) export CUSTOM_NAME=modeld-w1 CUSTOM_CMD=$MODELD_CMD ;;
        # its own data directory: an older build need not read what this one writes there
        modeld-base) b=${MODELD_CMD/#$BIN\/modeld/$BASE_BIN}
                     export CUSTOM_NAME=modeld-base-w1 CUSTOM_CMD=${b//data-w1/data-base-w1} ;;
      esac
      start_peer "$s" "$RESULTS_DIR/latency-$STAMP-$peer.log" || die "$peer did not start"
      url="http://127.0.0.1:$(peer_port "$s")/latest?sdk=2.3"
      for c in 50 256; do
        $(client_prefix) wrk -t1 -c"$c" -d"${WARM}s" "$url" >/dev/null 2>&1 || true
        t0=$(peer_cpu_ticks)
        line=$($(client_prefix) wrk -t1 -c"$c" -d"${DUR}s" -s "$REPO/Benchmarks/wrk-latency.lua" "$url" | grep '^LAT ') ||
          die "wrk failed against $s"
        # The server's CPU time per request (all its threads): on a shared machine req/s follows
        # whatever else runs, CPU per request much less so.
        line+=" cpu_ns=$(awk -v t=$(($(peer_cpu_ticks) - t0)) -v k="$(getconf CLK_TCK)" -v r="${line#*rps=}" -v d="$DUR" \
          'BEGIN {r += 0; printf "%.0f", (r > 0 ? t / k * 1e9 / (r * d) : 0)}')"
        echo "  run $run $(peer_label "$s") c$c: ${line#LAT } load=$(cut -d' ' -f1 /proc/loadavg)" >&2
        printf '%s\t%s\t%s\t%s\n' "$run" "$(peer_label "$s")" "$c" "${line#LAT }" >>"$LAT"
      done
      stop_peer || true   # lib.sh is written for set +e (its ps finds no child of modeld)
      rm -f "$RESULTS_DIR/nginx-access.log"
    done
  done
  python3 - "$LAT" <<'PY'
import statistics, sys
from collections import defaultdict
rows = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[1]):
    run, server, conns, kv = line.rstrip("\n").split("\t")
    for item in kv.split():
        k, v = item.split("=")
        rows[(server, int(conns))][k].append(float(v))
med = lambda s, c, k: statistics.median(rows[(s, c)][k])
# modeld is compared with the nginx configured like it: nginx-w1-log when that peer ran (both
# log every request), else nginx-w1 (neither logs). Spread = min-max over runs.
servers = [s for s in ("nginx-w1", "nginx-w1-log", "modeld-w1", "modeld-base-w1") if (s, 50) in rows]
ref = "nginx-w1-log" if "nginx-w1-log" in servers else ("nginx-w1" if "nginx-w1" in servers else servers[0])
print(f"\n## Latency pass (medians over runs, [min-max]; ratio = server / {ref})\n")
print("| conns | server | req/s | p50 ms | p99 ms | p99.9 ms | CPU µs/req | req/s ratio | p99 ratio | p99.9 ratio | CPU/req ratio |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
cell = lambda s, c, k, scale, fmt: fmt.format(med(s, c, k) / scale) + (
    f" [{fmt.format(min(rows[(s, c)][k]) / scale)}-{fmt.format(max(rows[(s, c)][k]) / scale)}]" if len(rows[(s, c)][k]) > 1 else "")
for c in (50, 256):
    for s in servers:
        r = [cell(s, c, "rps", 1, "{:,.0f}")] + [cell(s, c, k, 1e3, "{:.2f}") for k in ("p50_us", "p99_us", "p999_us")] + [
            cell(s, c, "cpu_ns", 1e3, "{:.2f}")]
        ratios = [med(s, c, k) / med(ref, c, k) for k in ("rps", "p99_us", "p999_us", "cpu_ns")]
        print(f"| {c} | {s} | " + " | ".join(r) + " | " + " | ".join(f"{x:.2f}" for x in ratios) + " |")
# Every round runs every server, so the i-th values of two servers are one round's pair: the
# median of the per-round ratios cancels drift between rounds better than a ratio of medians.
paired = lambda a, b, c, k: statistics.median(x / y for x, y in zip(rows[(a, c)][k], rows[(b, c)][k]))
if "modeld-base-w1" in servers:
    print("\nA/B, this checkout ÷ AB_REV (ratio of medians; median of per-round ratios): " + "; ".join(
        f"c{c} req/s {med('modeld-w1', c, 'rps') / med('modeld-base-w1', c, 'rps'):.3f}x; {paired('modeld-w1', 'modeld-base-w1', c, 'rps'):.3f}x, "
        f"p99 {med('modeld-w1', c, 'p99_us') / med('modeld-base-w1', c, 'p99_us'):.2f}x, "
        f"CPU/req {paired('modeld-w1', 'modeld-base-w1', c, 'cpu_ns'):.3f}x" for c in (50, 256)))
for peer in ("nginx-w1", "nginx-w1-log"):
    if peer in servers and "modeld-w1" in servers:
        print(f"modeld ÷ {peer} (median of per-round ratios): " + "; ".join(
            f"c{c} req/s {paired('modeld-w1', peer, c, 'rps'):.2f}x, p99 {paired('modeld-w1', peer, c, 'p99_us'):.2f}x, "
            f"CPU/req {paired('modeld-w1', peer, c, 'cpu_ns'):.2f}x" for c in (50, 256)))
print(f"\nraw: {sys.argv[1]}")
PY
fi

# --- one table over the passes, with ratios to the first nginx peer of the same pass
[[ ${#LABELS[@]} -gt 0 ]] || exit 0
python3 - "$RESULTS_DIR" "${NGINX_PEERS%% *}" "${LABELS[@]}" <<'PY'
import csv, statistics, sys
from collections import defaultdict
root, ref, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
cols = [("latest_c50.rps", "c50 req/s", "{:,.0f}"), ("latest_c256.rps", "c256 req/s", "{:,.0f}"),
        ("file64m_c4.MBps", "64 MiB c4 MB/s", "{:,.0f}"), ("file1g_curl.MBps", "1 GiB curl MB/s", "{:,.0f}"),
        ("rss_peak_MiB", "peak RSS MiB", "{:.1f}")]
oks = [("file1g.ok", "1 GiB ok"), ("range_last1m.ok", "range ok"), ("range_suffix1m.ok", "suffix ok")]
print("\n## Summary (medians over runs, [min-max]; ratio = server / %s in the same pass)\n" % ref)
print("| pass | server | " + " | ".join(h for _, h, _ in cols) + " | " + " | ".join(h for _, h in oks) +
      " | c50 ratio | c256 ratio | 1 GiB ratio | RSS ratio |")
print("|" + "---|" * (2 + len(cols) + len(oks) + 4))
for label in labels:
    data = defaultdict(lambda: defaultdict(list)); order = []
    with open(f"{root}/{label}/results.tsv") as f:
        for run, server, metric, value in csv.reader(f, delimiter="\t"):
            if server not in order: order.append(server)
            try: data[server][metric].append(float(value))
            except ValueError: pass
    med = lambda s, m: statistics.median(data[s][m]) if data[s][m] else None
    # median, and [min-max] over the runs when there are several
    spread = lambda s, m, fmt: (fmt.format(med(s, m)) + (f" [{fmt.format(min(data[s][m]))}-{fmt.format(max(data[s][m]))}]"
                                if len(data[s][m]) > 1 else "")) if med(s, m) is not None else "–"
    for s in order:
        cells = [spread(s, m, fmt) for m, _, fmt in cols]
        cells += [("yes" if med(s, m) == 1 else ("no" if med(s, m) is not None else "–")) for m, _ in oks]
        for m in ("latest_c50.rps", "latest_c256.rps", "file1g_curl.MBps", "rss_peak_MiB"):
            a, b = med(s, m), med(ref, m)
            cells.append(f"{a / b:.2f}" if a is not None and b else "–")
        print(f"| {label.rsplit('-', 2)[0]} | {s} | " + " | ".join(cells) + " |")
print(f"\nraw results: " + ", ".join(f"{root}/{l}" for l in labels))
PY
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
