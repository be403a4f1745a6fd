#!/usr/bin/env bash
# SPEC §17.1 (issue 36 item 1): the costs of a catalog at 1, 1,000 and 10,000 releases, side by
# side in one run. Catalogs are generated (make-catalog.py: catalog.json written directly, every
# file 4 KiB and already derived; publishing 10,000 files one by one takes longer than the whole
# benchmark), then one release-build modeld per size serves its own (1 worker).
#
#   Benchmarks/catalog/run.sh          SIZES="1 1000 10000" ROUNDS=3 DUR=6 REPEAT=20
#   BENCH_ROOT=/tmp/modeld-bench-catalog   scratch (catalogs, logs), never the repository
#   BIN=/path/to/release/bin               skip the build
#   AB_REV=<commit>                        also run that revision's binaries (Benchmarks/ab-base.sh),
#                                          every size beside HEAD's in the same rounds: rows `base`
#   REPEAT=0                               /latest only (no writes, reloads or list views)
#
# Tables: /latest req/s and p99 (wrk -t1 -c50, one channel of 10 releases; rounds alternate the
# sizes) with each server's RSS; the median of REPEAT reloads (SIGHUP: read, decode, serve — the
# reload another process's change costs), online and offline publish and PATCH (`modelctl`
# wall time, process start included) and derivation records (`modelctl packs derive` of the
# one file an offline publish left underived); list views (`modelctl list`, GET /admin/models,
# GET /admin/live). Servers are started and stopped by PID.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/Benchmarks/catalog
ROOT=${BENCH_ROOT:-/tmp/modeld-bench-catalog}
SIZES=${SIZES:-"1 1000 10000"}
ROUNDS=${ROUNDS:-3} DUR=${DUR:-6} REPEAT=${REPEAT:-20}
PORT0=${PORT0:-18310}
TOKEN=bench-catalog-$$
for tool in wrk curl python3; do command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }; done

if [[ -z ${BIN:-} ]]; then
  echo "== swift build -c release (modeld, modelctl)" >&2
  (cd "$REPO" && swift build -c release --product modeld >&2 && swift build -c release --product modelctl >&2)
  BIN=$(cd "$REPO" && swift build -c release --show-bin-path)
fi
# Runs are "<build>:<size>": HEAD's, and with AB_REV the base's, alternating in every round.
declare -A BINS=([head]=$BIN)
RUNS=""
if [[ -n ${AB_REV:-} ]]; then
  # shellcheck source=../ab-base.sh
  source "$REPO/Benchmarks/ab-base.sh"
  BINS[base]=$(ab_base_bin "$REPO" "$AB_REV" "-c release" modeld modelctl)
  for n in $SIZES; do RUNS+=" head:$n base:$n"; done
else
  for n in $SIZES; do RUNS+=" head:$n"; done
fi
mkdir -p "$ROOT"
declare -A PID PORT
cleanup() { for n in "${!PID[@]}"; do kill "${PID[$n]}" 2>/dev/null || true; done; }
trap cleanup EXIT
now_ms() { date +%s%3N; }
ms_of() { local s; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }; echo $(( ($(date +%s%N) - s) / 1000000 )); }
median() { python3 -c 'import sys,statistics; v=[float(x) for x in sys.argv[1:]]; print("%g" % statistics.median(v) if v else "-")' "$@"; }

i=0
for run in $RUNS; do
  n=${run#*:}
  PORT[$run]=$((PORT0 + i)); i=$((i + 1))
  d=$ROOT/${run/:/-}
  rm -rf "$d"; mkdir -p "$d/config"
  python3 "$HERE/make-catalog.py" "$n" "$d/models" "http://127.0.0.1:${PORT[$run]}" >&2
  # No background deriver: a derivation record is measured through `packs derive` below.
  echo '{"pack_at_publish": false}' >"$d/config/modeld.json"
  (cd "$d" && MODELD_ADMIN_TOKEN=$TOKEN exec "${BINS[${run%%:*}]}/modeld" --listen "127.0.0.1:${PORT[$run]}" --models-dir models --data-dir data \
    --public-base-url "http://127.0.0.1:${PORT[$run]}" --workers 1) >"$d/modeld.log" 2>&1 &
  PID[$run]=$!
done
for run in $RUNS; do
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:${PORT[$run]}/healthz" >/dev/null && break; sleep 0.1; done
  curl -fs "http://127.0.0.1:${PORT[$run]}/latest?sdk=2.3&channel=bench" >/dev/null || { echo "modeld ($run) does not answer" >&2; exit 1; }
done
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- /latest, rounds alternating the sizes
declare -A RPS P99
for r in $(seq "$ROUNDS"); do
  for n in $RUNS; do
    out=$(wrk -t1 -c50 -d"${DUR}s" --latency "http://127.0.0.1:${PORT[$n]}/latest?sdk=2.3&channel=bench")
    RPS[$n]+=" $(awk '/Requests\/sec/ {print $2}' <<<"$out")"
    P99[$n]+=" $(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}' <<<"$out")"
    echo "round $r, $n releases: ${RPS[$n]##* } req/s, p99 ${P99[$n]##* } ms" >&2
  done
done
rss() { awk -v k="$2:" '$1 == k {printf "%.1f", $2 / 1024}' "/proc/${PID[$1]}/status"; }

# --- writes and reloads
declare -A RELOAD POLLED PUBON PUBOFF PATCHON PATCHOFF DERIVE LIST ADMIN LIVE
for n in $RUNS; do
  d=$ROOT/${n/:/-}; url="http://127.0.0.1:${PORT[$n]}"; auth=(--server "$url" --token "$TOKEN"); BIN=${BINS[${n%%:*}]}
  id=$(python3 -c 'import json,sys; print([r["id"] for r in json.load(open(sys.argv[1]))["releases"] if r["channel"]=="bench"][-1])' "$d/models/catalog.json")
  for k in $(seq "$REPEAT"); do
    f=$d/new-$k.bin; head -c 4096 /dev/urandom >"$f"
    before=$(grep -c "SIGHUP: catalog reloaded" "$d/modeld.log" || true)
    kill -HUP "${PID[$n]}"
    for _ in $(seq 500); do [[ $(grep -c "SIGHUP: catalog reloaded" "$d/modeld.log" || true) -gt $before ]] && break; sleep 0.01; done
    RELOAD[$n]+=" $(grep "SIGHUP: catalog reloaded" "$d/modeld.log" | tail -1 | sed -E 's/.* in ([0-9.]+) ms.*/\1/')"
    PUBON[$n]+=" $(ms_of "$BIN/modelctl" publish "$f" --sdk-min 1.0 --channel bench --label "on-$k" "${auth[@]}")"
    # Derived unmeasured, so the measured `packs derive` below records one file: a second one
    # would wait out §16.1's one catalog write per second.
    (cd "$d" && "$BIN/modelctl" packs derive --models-dir models >/dev/null)
    PATCHON[$n]+=" $(ms_of "$BIN/modelctl" rollout "$id" $((90 + k % 2 * 10)) "${auth[@]}")"
    PUBOFF[$n]+=" $(cd "$d" && ms_of "$BIN/modelctl" publish "$f" --sdk-min 1.0 --channel bench --label "off-$k" --models-dir models)"
    DERIVE[$n]+=" $(cd "$d" && ms_of "$BIN/modelctl" packs derive --models-dir models)"
    polled=$(grep -c "catalog version .* reloaded in" "$d/modeld.log" || true)
    PATCHOFF[$n]+=" $(cd "$d" && ms_of "$BIN/modelctl" rollout "$id" $((90 + (k + 1) % 2 * 10)) --models-dir models)"
    # The watcher's reload of that change (another process's): its own log line.
    for _ in $(seq 200); do [[ $(grep -c "catalog version .* reloaded in" "$d/modeld.log" || true) -gt $polled ]] && break; sleep 0.01; done
    POLLED[$n]+=" $(grep "catalog version .* reloaded in" "$d/modeld.log" | tail -1 | sed -E 's/.* in ([0-9.]+) ms.*/\1/' || true)"
    LIST[$n]+=" $(ms_of "$BIN/modelctl" list "${auth[@]}")"
    ADMIN[$n]+=" $(curl -fs -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $TOKEN" "$url/admin/models" | awk '{print $1 * 1000}')"
    LIVE[$n]+=" $(curl -fs -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $TOKEN" "$url/admin/live" | awk '{print $1 * 1000}')"
  done
done

echo
echo "### /latest, 1 worker, wrk -t1 -c50 ${DUR}s, channel of 10 releases (median of $ROUNDS alternating rounds)"
echo
printf '| build | releases | req/s | ÷ 1-release | p99 ms | ÷ 1-release | RSS MiB | peak RSS MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n'
first=${SIZES%% *}
for n in $RUNS; do
  b=${n%%:*}; r0=$(median ${RPS[$b:$first]}); p0=$(median ${P99[$b:$first]})
  r=$(median ${RPS[$n]}); p=$(median ${P99[$n]})
  printf '| %s | %s | %s | %.2f | %s | %.2f | %s | %s |\n' "$b" "${n#*:}" "$r" "$(python3 -c "print($r/$r0)")" "$p" "$(python3 -c "print($p/$p0)")" "$(rss "$n" VmRSS)" "$(rss "$n" VmHWM)"
done
echo
echo "### Writes and reloads, ms (median of $REPEAT; modelctl wall time including its process start)"
echo
printf '| build | releases | reload (SIGHUP) | reload of another writer'"'"'s change | publish online | PATCH online | publish offline | derivation record offline | PATCH offline |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for n in $RUNS; do
  # A base build older than the watcher's reload line has no such figure: "-".
  polled=$(median ${POLLED[$n]:-})
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${n%%:*}" "${n#*:}" "$(median ${RELOAD[$n]})" "$polled" "$(median ${PUBON[$n]})" "$(median ${PATCHON[$n]})" \
    "$(median ${PUBOFF[$n]})" "$(median ${DERIVE[$n]})" "$(median ${PATCHOFF[$n]})"
done
echo
echo "### List views, ms (median of $REPEAT)"
echo
printf '| build | releases | modelctl list | GET /admin/models | GET /admin/live |\n|---|---:|---:|---:|---:|\n'
for n in $RUNS; do
  printf '| %s | %s | %s | %s | %s |\n' "${n%%:*}" "${n#*:}" "$(median ${LIST[$n]})" "$(median ${ADMIN[$n]})" "$(median ${LIVE[$n]})"
done
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
