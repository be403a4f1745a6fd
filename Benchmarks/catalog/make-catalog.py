#!/usr/bin/env python3
"""Writes a models directory with N releases as modelctl would leave it after publishing and
deriving them (SPEC §17.1's shape: channels of 20 releases, a tenth of the releases with 2
variants), without publishing N files one by one: catalog.json is generated directly, each
model file is 4 KiB of seeded random bytes with its real SHA-256, every file is marked derived
(`"patches":[]`, SPEC §16: nothing packable, so the deriver has nothing to do).

Channel `bench` holds the releases a benchmark asks for (`/latest?sdk=2.3&channel=bench`):
min(N, 10) of them, the newest at 100 %. The rest fill channels `c000`, `c001`, … of 20 each.

    make-catalog.py N DIR [BASE_URL]
"""
import hashlib
import json
import os
import random
import sys
import uuid

n = int(sys.argv[1])
out = sys.argv[2]
base = sys.argv[3] if len(sys.argv) > 3 else "http://127.0.0.1:8080"
rng = random.Random(17)
os.makedirs(out, exist_ok=True)


def new_id():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def model_file(name):
    data = rng.randbytes(4096)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    return hashlib.sha256(data).hexdigest(), len(data)


def stamp(i):
    return "2026-11-%02dT%02d:%02d:%02d.000Z" % (1 + i // 86400 % 28, i // 3600 % 24, i // 60 % 60, i % 60)


channels = ["bench"] * min(n, 10)
k = 0
while len(channels) < n:
    channels += ["c%03d" % k] * min(20, n - len(channels))
    k += 1
releases = []
for i, channel in enumerate(channels):
    seq = i + 1
    rid = new_id()
    sha, size = model_file(rid + ".bin")
    r = {"id": rid, "seq": seq, "file": rid + ".bin", "ext": "bin", "sha256": sha, "size": size, "patches": [],
         "sdk_min": "1.0", "channel": channel, "rollout_percent": 100, "state": "active",
         "label": "r%d" % seq, "published_at": stamp(seq), "content_type": "application/octet-stream"}
    if channel != "bench" and seq % 10 == 0:
        variants = []
        for name, req in (("ios", {"platform": ["ios"]}), ("big", {"min_ram_mb": 4096})):
            vid = new_id()
            vsha, vsize = model_file(vid + ".bin")
            variants.append({"name": name, "file": vid + ".bin", "sha256": vsha, "size": vsize, "patches": [],
                             "requires": req, "added_at": stamp(seq)})
        r["variants"] = variants
    releases.append(r)
catalog = {"format": 1, "catalog_version": n, "public_base_url": base, "next_seq": n + 1, "releases": releases}
with open(os.path.join(out, "catalog.json"), "w") as f:
    json.dump(catalog, f, separators=(",", ":"))
    f.write("\n")
print("%s: %d releases in %d channels" % (out, n, len(set(channels))))
