#!/usr/bin/env bash
# Requests and response body bytes per poll for a device with CHANNELS (default 50) models
# (SPEC §17.2, issue #36 "Requests and bytes per poll"): per-channel `/latest` vs one `POST
# /check`, and rules mode with one pointer per channel vs the rules index — each in the steady
# state (nothing changed) and after a change to one channel. Counted from modeld's access log
# (route, status, body bytes; headers not counted), so the build type does not matter: it uses
# the newest built modeld, modelctl and modeld-client (`swift build`). Not a test: prints a table.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/built-binary.sh
source scripts/lib/modeld-port.sh
CHANNELS=${CHANNELS:-50}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/modeld-poll-cost.XXXXXX")
MODELD=$(newest_built modeld); MODELCTL=$(newest_built modelctl); CLIENT=$(newest_built modeld-client)
[ -n "$MODELD" ] && [ -n "$MODELCTL" ] && [ -n "$CLIENT" ] || { echo "build first: swift build" >&2; exit 1; }
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

mkdir -p "$SCRATCH/models" "$SCRATCH/data"
names=(); for i in $(seq 0 $((CHANNELS - 1))); do names+=("model-$i"); done
# A free port chosen up front: the answers' URLs (public_base_url) must name it for downloads.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
MODELD_ADMIN_TOKEN=bench MODELD_PACK_AT_PUBLISH=false "$MODELD" --listen "127.0.0.1:$port" --models-dir "$SCRATCH/models" \
  --data-dir "$SCRATCH/data" --public-base-url "$base" --instance-id poll >"$SCRATCH/modeld.log" 2>&1 &
pid=$!
[ "$(modeld_port "$SCRATCH/modeld.log" "$pid" modeld)" = "$port" ]
publish() {  # channel
  head -c 4096 /dev/urandom >"$SCRATCH/file.bin"
  "$MODELCTL" publish "$SCRATCH/file.bin" --sdk-min 2.0 --channel "$1" --server "$base" --token bench >/dev/null
}
for c in "${names[@]}"; do publish "$c"; done
log=$SCRATCH/data/access-poll.log
channel_args=(); for c in "${names[@]}"; do channel_args+=(--channel "$c"); done

# One poll in each mode; prints "requests bytes" of the check/rules requests it made.
mark() { sleep 1; wc -l <"$log" 2>/dev/null || echo 0; }   # after the last poll's records landed
since() {  # line number: requests and body bytes of update checks and rules after it
  sleep 1   # the access log is written off the request path
  tail -n +"$(( $1 + 1 ))" "$log" | python3 -c '
import json, sys
n = b = 0
for line in sys.stdin:
    r = json.loads(line)
    if r["route"] in ("latest", "check"):
        n += 1; b += r["bytes"]
print(n, b)'
}
per_channel() { for c in "${names[@]}"; do "$CLIENT" --server "$base" --sdk 2.3 --cache "$SCRATCH/c-latest" --channel "$c" update >/dev/null 2>&1; done; }
batched() { "$CLIENT" --server "$base" --sdk 2.3 --cache "$SCRATCH/c-check" "${channel_args[@]}" update >/dev/null 2>&1; }
rules_pointers() { for c in "${names[@]}"; do "$CLIENT" --rules "$base" --sdk 2.3 --cache "$SCRATCH/c-rules" --channel "$c" update >/dev/null 2>&1; done; }
rules_index() { "$CLIENT" --rules "$base" --sdk 2.3 --cache "$SCRATCH/c-index" "${channel_args[@]}" update >/dev/null 2>&1; }

declare -A steady changed
for mode in per_channel batched rules_pointers rules_index; do $mode; done   # install everything first
for mode in per_channel batched rules_pointers rules_index; do
  # Events are queued by the installs: a first steady poll sends them; measure the next one.
  $mode; m=$(mark); $mode; steady[$mode]=$(since "$m")
done
publish "${names[7]}"
for mode in per_channel batched rules_pointers rules_index; do m=$(mark); $mode; changed[$mode]=$(since "$m"); done

printf '\n%s channels, one poll of one device (requests / response body bytes; headers not counted)\n' "$CHANNELS"
printf '%-34s %22s %22s\n' "mode" "nothing changed" "one channel changed"
label() { case $1 in per_channel) echo "server, GET /latest per channel";; batched) echo "server, one POST /check";;
  rules_pointers) echo "rules, a pointer per channel";; rules_index) echo "rules, the rules index";; esac; }
for mode in per_channel batched rules_pointers rules_index; do
  read -r sn sb <<<"${steady[$mode]}"; read -r cn cb <<<"${changed[$mode]}"
  printf '%-34s %10s / %9s %10s / %9s\n' "$(label $mode)" "$sn" "$sb" "$cn" "$cb"
done
echo "(a changed channel's model download is not counted: it is the same in every mode)"
