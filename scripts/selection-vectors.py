#!/usr/bin/env python3
"""Writes Tests/Fixtures/selection-cases.json: the shared selection vectors (SPEC §3, §3.1,
§3.2, §9.2, §11.2) that modeld's unit tests (ModelCatalogTests) and the client's (ModeldClientTests)
both read, the way every GrowthBook SDK passes one cases.json.

This script is a third, independent implementation of selection (hashlib, plain Python): the
expected answers are computed here, not by the Swift code under test. Client ids are searched
so the cases sit on the rollout edges (buckets 0, p-1, p, 99) of every partial release.

    python3 scripts/selection-vectors.py    # rewrites the fixture (deterministic)
"""
import hashlib
import json
import os
import random

BASE = "https://cdn.example.com/app"


def uid(n):
    return "%08x-0000-4000-8000-%012x" % (0x5e1ec7 + n, n)


def sha(n):
    return hashlib.sha256(b"file-%d" % n).hexdigest()


def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def bucket(release_id, client_id):
    digest = hashlib.sha256((release_id + ":" + client_id).encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100


T = "2026-11-01T10:00:%02d.000Z"
GUARD = {"metric": {"name": "upsell", "outcome": "purchased"}, "stages": [1, 5, 10, 25, 50],
         "status": "healthy", "started_at": "2026-11-01T12:00:00.000Z", "stage_started_at": "2026-11-02T12:00:00.000Z"}


def release(n, seq, sdk_min, sdk_max=None, channel="stable", rollout=100, state="active", variants=(), guard=None,
            base=None, info=None):
    r = {"id": uid(n), "seq": seq, "file": uid(n) + ".gguf", "ext": "gguf", "sha256": sha(n), "size": 1000 * n + 7,
         "sdk_min": sdk_min, "channel": channel, "rollout_percent": rollout, "state": state,
         "label": "r%d" % n, "published_at": T % seq, "content_type": "application/octet-stream"}
    if sdk_max:
        r["sdk_max"] = sdk_max
    if state == "retired":
        r["retired_at"] = "2026-11-03T00:00:00.000Z"
    if variants:
        r["variants"] = [{"name": name, "file": uid(100 * n + i) + ".gguf", "sha256": sha(100 * n + i), "size": 100000 * n + i,
                          "requires": req, "added_at": T % seq} for i, (name, req) in enumerate(variants)]
    if guard:
        r["guard"] = guard
    if base:
        r["base"] = base
    r.update(info or {})
    # Key order of catalog.json (ModelCatalog's writer), so the fixture reads like a real catalog.
    order = ["id", "seq", "file", "ext", "sha256", "size", "sdk_min", "sdk_max", "channel", "rollout_percent", "state",
             "label", "published_at", "retired_at", "content_type", "base", "display_name", "license", "min_ram_mb",
             "variants", "guard"]
    return {k: r[k] for k in order if k in r}


RELEASES = [
    release(1, 1, "1.0"),
    release(2, 2, "2.0", "3.0", variants=[
        ("8gb", {"platform": ["ios", "ipados"], "min_ram_mb": 7000}),
        ("new-os", {"min_os": "17.2"}),
        ("iphone16", {"device_prefix": ["iPhone16,", "iPhone17,"]}),
        ("linux", {"platform": ["linux"]}),
        ("everything", {"platform": ["macos"], "min_os": "14.0", "min_ram_mb": 16000, "device_prefix": ["Mac"]}),
    ]),
    release(3, 3, "2.0", "3.0", rollout=30, variants=[("big", {"min_ram_mb": 16000})]),
    release(4, 4, "2.0", "3.0", state="paused"),
    release(5, 5, "2.5", "3.0", state="retired"),
    release(6, 6, "2.0", "3.0", rollout=10, guard=GUARD),
    release(7, 7, "3.0", "4.0", rollout=0),
    release(8, 8, "1.0", "2.0", channel="beta", variants=[("small", {"platform": ["watchos"]})]),
    release(9, 9, "1.0", channel="old", state="retired"),
    release(10, 10, "2.0.5", "2.0.6", channel="beta", rollout=50),
    # SPEC §3.2: an LLM base, a plain adapter and two adapters pinned to two bases (the release
    # 11 file and one an app bundles), the newest partial; Apple adapters per system model.
    release(11, 11, "1.0", channel="llm", info={"display_name": "Llama 3.2 1B Q4", "min_ram_mb": 2048,
                                                "license": {"spdx": "LLAMA-3.2", "url": "https://example.com/llama-license.txt",
                                                            "sha256": sha(999)}}),
    release(12, 12, "1.0", channel="llm-lora", info={"display_name": "plain adapter"}),
    release(13, 13, "1.0", channel="llm-lora", base={"channel": "llm", "sha256": sha(11)}),
    release(14, 14, "1.0", channel="llm-lora", base={"channel": "llm", "sha256": sha(900)}),
    release(15, 15, "1.0", channel="llm-lora", rollout=50, base={"channel": "llm", "sha256": sha(11)}),
    release(16, 16, "1.0", channel="fm-adapter", base={"channel": "llm", "sha256": sha(11)},
            variants=[("fm-26-1", {"system_model": "26.1"}), ("fm-26-2", {"system_model": "26.2"})]),
    release(17, 17, "1.0", channel="fm-adapter", variants=[("fm-26-1", {"system_model": "26.1"}), ("fm-26-2", {"system_model": "26.2"})]),
]
CATALOG = {"format": 1, "catalog_version": 42, "public_base_url": BASE, "next_seq": 18, "releases": RELEASES}


def matches(req, attrs):
    if "platform" in req and attrs.get("platform") not in req["platform"]:
        return False
    if "min_os" in req and (attrs.get("os") is None or version(attrs["os"]) < version(req["min_os"])):
        return False
    if "min_ram_mb" in req and (attrs.get("ram_mb") is None or attrs["ram_mb"] < req["min_ram_mb"]):
        return False
    if "device_prefix" in req and (attrs.get("device") is None or not any(attrs["device"].startswith(p) for p in req["device_prefix"])):
        return False
    if "system_model" in req and attrs.get("system_model") != req["system_model"]:
        return False
    return True


def select(sdk, channel, client_id, attrs, installed=None, releases=RELEASES):
    v = version(sdk)
    installed = installed or {}
    eligible = [r for r in releases if r["state"] == "active" and r["channel"] == channel
                and version(r["sdk_min"]) <= v and ("sdk_max" not in r or v < version(r["sdk_max"]))
                and ("base" not in r or installed.get(r["base"]["channel"]) == r["base"]["sha256"])]
    chosen = None
    for r in eligible:
        p = r["rollout_percent"]
        inside = p >= 100 or (p > 0 and client_id is not None and bucket(r["id"], client_id) < p)
        if inside and (chosen is None or r["seq"] > chosen["seq"]):
            chosen = r
    if chosen is None:
        return None
    answer = {"id": chosen["id"], "variant": None, "url": BASE + "/models/" + chosen["file"],
              "sha256": chosen["sha256"], "size": chosen["size"]}
    if any(a is not None for a in attrs.values()):
        for var in chosen.get("variants", []):
            if matches(var["requires"], attrs):
                answer.update(variant=var["name"], url=BASE + "/models/" + var["file"], sha256=var["sha256"], size=var["size"])
                break
    return answer


def arm(release_id, client_id, percent):
    b = bucket(release_id, client_id)
    return "treatment" if b < percent else ("control" if b >= 100 - percent else None)


def rules(channel):
    out = []
    for r in RELEASES:
        if r["state"] != "active" or r["channel"] != channel:
            continue
        e = {"url": BASE + "/models/" + r["file"], "id": r["id"], "sha256": r["sha256"], "size": r["size"],
             "sdk_min": r["sdk_min"]}
        if "sdk_max" in r:
            e["sdk_max"] = r["sdk_max"]
        e.update(channel=r["channel"], label=r["label"], published_at=r["published_at"])
        for k in ["base", "display_name", "license", "min_ram_mb"]:
            if k in r:
                e[k] = r[k]
        # disk_bytes: the file plus its largest other form; these .gguf files have none.
        e.update(disk_bytes=r["size"], seq=r["seq"], rollout_percent=r["rollout_percent"],
                 variants=[{"name": v["name"], "url": BASE + "/models/" + v["file"], "sha256": v["sha256"], "size": v["size"],
                            "disk_bytes": v["size"], "requires": v["requires"]} for v in r.get("variants", [])])
        out.append(e)
    return {"v": 1, "channel": channel, "catalog": CATALOG["catalog_version"], "releases": out}


def client_with_bucket(release_id, target, tag):
    for n in range(100000):
        cid = "%s-%d" % (tag, n)
        if bucket(release_id, cid) == target:
            return cid
    raise SystemExit("no client id for bucket %d" % target)


NONE = {"platform": None, "os": None, "ram_mb": None, "device": None, "system_model": None}
DEVICES = [
    ("no attributes", NONE),
    ("ios 8 GB", dict(NONE, platform="ios", ram_mb=8192)),
    ("ipados at min_ram_mb", dict(NONE, platform="ipados", ram_mb=7000)),
    ("ios below min_ram_mb", dict(NONE, platform="ios", ram_mb=6999)),
    ("os at min_os", dict(NONE, os="17.2")),
    ("os below min_os", dict(NONE, os="17.1.9")),
    ("os 17.10 > 17.2", dict(NONE, os="17.10")),
    ("device prefix", dict(NONE, device="iPhone16,2")),
    ("device second prefix", dict(NONE, device="iPhone17,1")),
    ("device no prefix", dict(NONE, device="iPhone15,4")),
    ("linux", dict(NONE, platform="linux", os="6.8.0", ram_mb=2048, device="x86_64")),
    ("mac all conditions", dict(NONE, platform="macos", os="14.0", ram_mb=16000, device="Mac15,3")),
    ("mac one condition short", dict(NONE, platform="macos", os="14.0", ram_mb=15999, device="Mac15,3")),
    ("ram 16 GB only", dict(NONE, ram_mb=16000)),
    ("watch", dict(NONE, platform="watchos")),
    ("system model 26.1", dict(NONE, platform="ios", system_model="26.1")),
    ("system model 26.2", dict(NONE, platform="macos", system_model="26.2")),
    ("system model 26.10", dict(NONE, system_model="26.10")),
]


def case(name, sdk, channel, client_id, attrs, guard_release=None, installed=None):
    c = {"name": name, "sdk": sdk, "channel": channel, "client_id": client_id}
    c.update(attrs)
    if installed:
        c["installed"] = installed
    c["expect"] = select(sdk, channel, client_id, attrs, installed)
    if guard_release is not None and client_id is not None:
        c["arm"] = arm(guard_release["id"], client_id, guard_release["rollout_percent"])
    return c


def main():
    cases = []
    guarded = RELEASES[5]
    # SDK range boundaries: sdk_min inclusive, sdk_max exclusive, missing components 0.
    for sdk in ["0.9.999999", "1", "1.0.0", "1.9.999999", "2", "2.0.0", "2.0.4", "2.0.5", "2.0.6", "2.4.999999", "2.5",
                "2.9.999999", "3", "3.0.1", "3.999999.999999", "4", "999999.999999.999999"]:
        for channel in ["stable", "beta", "old", "nope"]:
            cases.append(case("sdk %s %s anonymous" % (sdk, channel), sdk, channel, None, NONE))
            cases.append(case("sdk %s %s client" % (sdk, channel), sdk, channel, "boundary-client", NONE))
    # Rollout edges of every partial release: buckets 0, p-1, p and 99.
    for r in RELEASES:
        p = r["rollout_percent"]
        if r["state"] != "active" or not 0 < p < 100:
            continue
        sdk = r["sdk_min"]
        for b in sorted({0, p - 1, p, 99}):
            cid = client_with_bucket(r["id"], b, "edge-%s" % r["label"])
            for label, attrs in DEVICES:
                cases.append(case("%s bucket %d (p=%d) %s" % (r["label"], b, p, label), sdk, r["channel"], cid, attrs,
                                  guarded if r is guarded else None))
    # The guarded release's arms: treatment (bucket < p) gets it, control (bucket >= 100-p)
    # gets what it would get without it, the middle neither.
    for b in [0, 5, 9, 10, 50, 89, 90, 95, 99]:
        cid = client_with_bucket(guarded["id"], b, "arm")
        cases.append(case("guarded %s bucket %d" % (guarded["label"], b), "2.3", "stable", cid, NONE, guarded))
        cases.append(case("guarded %s bucket %d ios 8 GB" % (guarded["label"], b), "2.3", "stable", cid, DEVICES[1][1], guarded))
    # Every variant requirement kind, on the 100 % release and the partial one.
    for label, attrs in DEVICES:
        cases.append(case("variants %s anonymous" % label, "2.3", "stable", None, attrs))
        cases.append(case("variants beta %s" % label, "1.5", "beta", "v-client", attrs))
    # Bases (SPEC §3.2): base A gets its adapter (the partial one inside its bucket), base B its
    # own, an unknown or no base the plain adapter; the reported base is the `llm` model.
    partial = RELEASES[14]
    bases = [("base A", {"llm": sha(11)}), ("base B", {"llm": sha(900)}), ("unknown base", {"llm": sha(901)}),
             ("no base", None)]
    for label, installed in bases:
        for b in sorted({0, 49, 50, 99}):
            cid = client_with_bucket(partial["id"], b, "base-edge")
            cases.append(case("llm-lora %s bucket %d" % (label, b), "1.2", "llm-lora", cid, NONE, installed=installed))
        cases.append(case("llm-lora %s anonymous" % label, "1.2", "llm-lora", None, NONE, installed=installed))
        for dlabel, attrs in DEVICES[-4:]:
            cases.append(case("fm-adapter %s %s" % (label, dlabel), "1.2", "fm-adapter", None, attrs, installed=installed))
    # Breadth: seeded random tuples.
    rng = random.Random(20261126)
    for i in range(200):
        sdk = rng.choice(["1.2", "2.0", "2.0.5", "2.3.1", "2.7", "2.9.999999", "3.0", "3.5"])
        channel = rng.choice(["stable", "stable", "beta", "old"])
        cid = rng.choice([None, "rand-%d" % rng.randrange(10 ** 6)])
        attrs = rng.choice(DEVICES)[1]
        cases.append(case("random %d" % i, sdk, channel, cid, attrs, guarded if channel == "stable" and cid else None))
    for i in range(100):
        channel = rng.choice(["llm-lora", "fm-adapter", "llm"])
        cid = rng.choice([None, "rand-%d" % rng.randrange(10 ** 6)])
        cases.append(case("random base %d" % i, "1.%d" % rng.randrange(5), channel, cid, rng.choice(DEVICES)[1],
                          installed=rng.choice(bases)[1]))
    doc = {
        "about": "Shared selection vectors (SPEC §3, §3.1, §3.2, §9.2, §11.2), written by scripts/selection-vectors.py; "
                 "read by ModelCatalogTests (server) and ModeldClientTests (client). expect null = no_model. "
                 "installed = the models the device reports (the server reads each as base=, rules mode as its installed model).",
        "public_base_url": BASE,
        "catalog": CATALOG,
        "rules": {c: rules(c) for c in ["stable", "beta", "old", "llm", "llm-lora", "fm-adapter"]},
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "selection-cases.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=True)
        f.write("\n")
    print("%d cases -> %s" % (len(cases), os.path.normpath(path)))


if __name__ == "__main__":
    main()
