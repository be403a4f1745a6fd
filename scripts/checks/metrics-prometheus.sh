#!/usr/bin/env bash
# SPEC §4.4: modeld's /metrics parsed by the reference parser (prometheus_client, from PyPI into a
# scratch virtualenv), after some traffic, on a real modeld (the built debug binary, or MODELD_BIN)
# on an ephemeral loopback port with temporary directories. Exits non-zero on any problem.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/modeld-port.sh
source scripts/lib/modeld-port.sh
BIN=${MODELD_BIN:-$(swift build --show-bin-path 2>/dev/null)/modeld}
[[ -x $BIN ]] || { echo "metrics-prometheus: $BIN not built (swift build first)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=
cleanup() { [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

python3 -m venv "$tmp/venv" >/dev/null
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check prometheus_client >/dev/null

cp -r models "$tmp/models"
env -u MODELD_ADMIN_TOKEN "$BIN" --listen 127.0.0.1:0 --models-dir "$tmp/models" --data-dir "$tmp/data" \
  --public-base-url http://models.example.test >"$tmp/log" 2>&1 &
pid=$!
port=$(modeld_port "$tmp/log" "$pid" metrics-prometheus)
base=http://127.0.0.1:$port
for _ in 1 2 3; do curl -sf --max-time 5 -o /dev/null "$base/latest?sdk=2.3"; done
curl -s --max-time 5 -o /dev/null "$base/nope" || true

"$tmp/venv/bin/python" - "$base/metrics" <<'PY'
import sys, time, urllib.request
from prometheus_client.parser import text_string_to_metric_families

def check():
    text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}  # raises on malformed input
    # prometheus_client strips _total from counter family names.
    need = {"modeld_http_requests": "counter", "modeld_http_response_body_bytes": "counter",
            "modeld_open_connections": "gauge", "modeld_events": "counter", "modeld_event_batches": "counter",
            "modeld_event_commits": "counter", "modeld_fsync_seconds": "histogram",
            "modeld_catalog_reloads": "counter", "modeld_signing_refused": "counter", "modeld_build_info": "gauge"}
    bad = [f"{n}: {families[n].type if n in families else 'missing'}" for n, t in need.items()
           if n not in families or families[n].type != t]
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families.values() for s in f.samples}
    latest = samples.get(("modeld_http_requests_total", (("route", "latest"), ("status", "200"))))
    if latest != 3: bad.append(f"requests latest/200 = {latest}, want 3")
    if not samples.get(("modeld_http_response_body_bytes_total", (("route", "latest"),))): bad.append("latest body bytes = 0")
    if samples.get(("modeld_open_connections", ())) != 1: bad.append("open connections != 1 (the scrape)")
    return bad, len(families)

for attempt in range(40):  # an exchange is counted when it finishes: allow it a moment
    bad, n = check()
    if not bad: break
    time.sleep(0.05)
if bad: sys.exit("metrics-prometheus: " + "; ".join(bad))
print(f"metrics-prometheus: {n} families parsed by prometheus_client, counters as expected")
PY
