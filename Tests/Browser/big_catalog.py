"""A catalog.json of SPEC §17.1's size, written directly: RELEASES releases in 20-release
channels (10,000 → 500 channels), a tenth of them with 2 variants. Publishing 10,000 files one
by one through modelctl takes minutes per run (issue 36 measured 401 ms per publish at 3,000
releases); the console reads only the catalog, so the model files are not written (their
/models/ URLs answer 404, which no console view requests).

    python3 Tests/Browser/big_catalog.py RELEASES > catalog.json
"""
import json
import sys

KINDS = ("ranker", "face", "llm-base", "adapter", "asr")
PER_CHANNEL = 20


def uuid(n, kind=4):
    return "%08x-0000-4000-8%03x-%012x" % (n, kind, n)


def stamp(seq):
    return "2026-%02d-%02dT%02d:%02d:00.000Z" % (1 + seq // 40000 % 12, 1 + seq // 1440 % 28, seq // 60 % 24, seq % 60)


def channel_name(c):
    return "%s-%03d" % (KINDS[c % len(KINDS)], c)


def release(seq, c, j):
    """Release j (0 = oldest) of channel c: the newest serves 100 %, the one before it is a 10 %
    challenger in one channel of 4; every seventh is paused and the oldest two are retired."""
    rid = uuid(seq)
    state, rollout = "active", 100
    if j < 2:
        state = "retired"
    elif j % 7 == 3:
        state = "paused"
    elif j == PER_CHANNEL - 1 and c % 4 == 0:
        rollout = 10
    r = {"id": rid, "seq": seq, "file": rid + ".bin", "ext": "bin", "sha256": "%064x" % seq, "size": 4096 + seq,
         "sdk_min": "1.0" if j < 10 else "2.0", "channel": channel_name(c), "rollout_percent": rollout, "state": state,
         "label": "%s %d v%d" % (KINDS[c % len(KINDS)], c, j + 1), "published_at": stamp(seq),
         "content_type": "application/octet-stream"}
    if state == "retired":
        r["retired_at"] = stamp(seq + 1)
    if seq % 10 == 0:   # a tenth of the releases: two device variants
        r["variants"] = [{"name": name, "file": uuid(seq, 5 + k) + ".bin", "sha256": "%064x" % (seq * 10 + k + 1),
                          "size": 2048 + seq, "requires": {"platform": [platform]}, "added_at": stamp(seq)}
                         for k, (name, platform) in enumerate((("npu", "android"), ("ane", "ios")))]
    return r


def catalog(count):
    releases = []
    for seq in range(1, count + 1):
        c, j = divmod(seq - 1, PER_CHANNEL)
        releases.append(release(seq, c, j))
    return {"format": 1, "catalog_version": 1, "next_seq": count + 1, "releases": releases}


def write(path, count):
    with open(path, "w") as f:
        json.dump(catalog(count), f, separators=(",", ":"))


if __name__ == "__main__":
    json.dump(catalog(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000), sys.stdout, separators=(",", ":"))
