#!/usr/bin/env bash
# SPEC §12, verified by an independent implementation: Python `cryptography` (PyPI, in a scratch
# virtualenv) checks modeld's Ed25519 signatures from the raw headers and bodies curl received —
# GET identity and gzip, HEAD, 304, POST — and the static pointer with its snapshot. The real
# modeld/modelctl (built debug binaries, or MODELD_BIN/MODELCTL_BIN) on an ephemeral loopback port.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../lib/modeld-port.sh
source scripts/lib/modeld-port.sh
BIN_DIR=$(swift build --show-bin-path 2>/dev/null)
MODELD=${MODELD_BIN:-$BIN_DIR/modeld}
MODELCTL=${MODELCTL_BIN:-$BIN_DIR/modelctl}
for b in "$MODELD" "$MODELCTL"; do [[ -x $b ]] || { echo "signatures-python: $b not built (swift build first)" >&2; exit 1; }; done

tmp=$(mktemp -d)
pid=
cleanup() { [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

python3 -m venv "$tmp/venv" >/dev/null
"$tmp/venv/bin/python" -c 'import cryptography' 2>/dev/null \
  || "$tmp/venv/bin/pip" install --quiet --disable-pip-version-check cryptography >/dev/null

"$MODELCTL" keys generate --name k1 --out "$tmp/keys" >/dev/null
"$MODELCTL" keys generate --name k2 --out "$tmp/keys" >/dev/null
cat >"$tmp/modeld.json" <<JSON
{"listen": "127.0.0.1:0", "models_dir": "$tmp/models", "data_dir": "$tmp/data",
 "public_base_url": "http://models.example.test", "instance_id": "sigcheck", "access_log": "off",
 "signing": {"keys": ["$tmp/keys/k1.key", "$tmp/keys/k2.key"], "ttl_seconds": 3600, "resign_seconds": 60}}
JSON
cp -r models "$tmp/models"
rm -f "$tmp/models/latest_model_details.sig.json"; rm -rf "$tmp/models/details"
env -u MODELD_ADMIN_TOKEN "$MODELD" --config "$tmp/modeld.json" >"$tmp/log" 2>&1 &
pid=$!
port=$(modeld_port "$tmp/log" "$pid" signatures-python)
base=http://127.0.0.1:$port
q="$base/latest?sdk=2.3"
c() { curl -s --max-time 5 "$@"; }
c -D "$tmp/get.h" -o "$tmp/get.b" "$q"
c -D "$tmp/gzip.h" -o "$tmp/gzip.b" -H 'Accept-Encoding: gzip' "$q"   # no --compressed: raw gzip bytes
c -I -o "$tmp/head.h" "$q"
etag=$(grep -i '^etag:' "$tmp/get.h" | cut -d' ' -f2 | tr -d '\r')
c -D "$tmp/304.h" -o /dev/null -H "If-None-Match: $etag" "$q"
c -D "$tmp/post.h" -o "$tmp/post.b" -H 'Content-Type: application/json' \
  -d '{"batch_id":"sig-1","client_id":"py","events":[{"name":"e","ts":"2026-11-21T10:00:00Z"}]}' "$q"
for _ in $(seq 1 100); do   # the pointer is written by a background thread right after start-up
  c -f -o "$tmp/pointer.json" "$base/latest_model_details.sig.json" && break
  sleep 0.05
done
snapshot=$("$tmp/venv/bin/python" -c 'import json,sys;print(json.load(open(sys.argv[1]))["file"])' "$tmp/pointer.json")
c -f -D "$tmp/snap.h" -o "$tmp/snap.b" "$base/$snapshot"

"$tmp/venv/bin/python" - "$tmp" <<'PY'
import base64, gzip, hashlib, json, re, sys, time
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.exceptions import InvalidSignature

d = sys.argv[1]
def pub(name):
    tag, b64, keyid = open(f"{d}/keys/{name}.pub").read().split()
    raw = base64.b64decode(b64)
    assert tag == "modeld-ed25519-public-v1" and keyid == "keyid=" + hashlib.sha256(raw).hexdigest()[:16], "pub file"
    return hashlib.sha256(raw).hexdigest()[:16], Ed25519PublicKey.from_public_bytes(raw)
keys = dict(pub(n) for n in ("k1", "k2"))

def headers(name):
    lines = open(f"{d}/{name}.h", "rb").read().decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    return status, {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}

def base(kind, catalog, created, expires, body):
    return (f"modeld-sig-v1\nkind={kind}\ncatalog={catalog}\ncreated={created}\nexpires={expires}\n"
            f"size={len(body)}\nsha256={hashlib.sha256(body).hexdigest()}\n").encode()

def check(sigs, msg, what):
    seen = set()
    for keyid, sig in sigs:
        keys[keyid].verify(sig, msg)  # raises InvalidSignature
        seen.add(keyid)
    assert seen == set(keys), f"{what}: signed by {seen}, want both keys"

def check_latest(name, body, want_status):
    status, h = headers(name)
    assert status == want_status, f"{name}: status {status}"
    p = dict(m.strip().split("=", 1) for m in h["modeld-signature-params"].split(","))
    assert p["v"] == "1" and int(p["expires"]) - int(p["created"]) == 3600 and int(p["expires"]) > time.time(), p
    sigs = [(k, base64.b64decode(s)) for s, k in re.findall(r':([A-Za-z0-9+/=]+):;keyid="([0-9a-f]{16})"', h["modeld-signature"])]
    assert len(sigs) == 2, h["modeld-signature"]
    check(sigs, base("latest", p["catalog"], p["created"], p["expires"], body), name)
    return h

identity = open(f"{d}/get.b", "rb").read()
check_latest("get", identity, 200)
h = check_latest("gzip", identity, 200)                       # signature over the identity body ...
gz = open(f"{d}/gzip.b", "rb").read()
assert h.get("content-encoding") == "gzip" and gzip.decompress(gz) == identity and gz != identity  # ... of a gzip answer
check_latest("head", identity, 200)
check_latest("304", identity, 304)
post = open(f"{d}/post.b", "rb").read()
assert b'"events":{"accepted":1' in post, post
check_latest("post", post, 200)

ptr = json.load(open(f"{d}/pointer.json"))
snap = open(f"{d}/snap.b", "rb").read()
assert ptr["v"] == 1 and ptr["kind"] == "details" and ptr["file"] == f"details/{ptr['catalog']}.json", ptr
assert ptr["size"] == len(snap) and ptr["sha256"] == hashlib.sha256(snap).hexdigest(), "snapshot bytes"
check([(s["keyid"], base64.b64decode(s["sig"])) for s in ptr["signatures"]],
      base("details", ptr["catalog"], ptr["created"], ptr["expires"], snap), "pointer")
assert "immutable" in headers("snap")[1]["cache-control"]
try:
    keys[ptr["signatures"][0]["keyid"]].verify(base64.b64decode(ptr["signatures"][0]["sig"]), base("details", ptr["catalog"] + 1, ptr["created"], ptr["expires"], snap))
    sys.exit("signatures-python: a signature verified over a different base")
except InvalidSignature:
    pass
print("signatures-python: GET, gzip, HEAD, 304, POST and the static pointer verified by Python cryptography with both keys")
PY
