#!/usr/bin/env python3
"""Writes a synthetic modeld access log (SPEC §6) for trying `modelctl cost report`.

Deterministic (fixed seed): 14 days of update checks (200/304), full downloads of two
model releases (a new one rolls out on day 6), range resumes (206), cut-short downloads,
health checks and metrics scrapes. Usage:
    scripts/sample-access-log.py > /tmp/access-sample.log
    modelctl cost report --access-log /tmp/access-sample.log --format html --out /tmp/report.html
"""
import datetime
import json
import random
import sys

random.seed(42)
START = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)
DAYS = 14
OLD = ("2b1f5c0e-7d3a-4f5e-9a61-0c2d8e4b7a11", "gguf", 1_210_000_000)
NEW = ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "gguf", 1_180_000_000)
LATEST_BYTES = 286


def record(ts, path, route, status, nbytes, rng=False, model=None, sdk=None):
    r = {"ts": ts.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "method": "GET", "path": path,
         "route": route, "status": status, "bytes": nbytes, "range": rng,
         "duration_ms": round(random.uniform(0.2, 4.0) if route != "models" else random.uniform(800, 9000), 2),
         "instance": "modeld-a"}
    if model:
        r["model_id"] = model
    if sdk:
        r["sdk"] = sdk
    return r


def day_records(day):
    date = START + datetime.timedelta(days=day)
    weekend = date.weekday() >= 5
    polls = int(random.gauss(5200 if not weekend else 3900, 250))
    # The new release rolls out on day 6 and ramps up; the old one tails off.
    new_share = 0.0 if day < 6 else min(1.0, 0.25 * (day - 5))
    downloads = int(random.gauss(240 if not weekend else 170, 20)) + (int(420 * new_share) if day in range(6, 10) else 0)
    out = []
    for _ in range(polls):
        ts = date + datetime.timedelta(seconds=random.uniform(0, 86400))
        status = 304 if random.random() < 0.82 else 200
        out.append(record(ts, "/latest", "latest", status, LATEST_BYTES if status == 200 else 0, sdk="2.3"))
    for _ in range(downloads):
        ts = date + datetime.timedelta(seconds=random.uniform(0, 86400))
        mid, ext, size = NEW if random.random() < new_share else OLD
        path = f"/models/{mid}.{ext}"
        roll = random.random()
        if roll < 0.06:    # client went away mid-download
            out.append(record(ts, path, "models", 200, random.randrange(size // 10, size), model=mid))
        elif roll < 0.14:  # resumed download
            start = random.randrange(size // 5, size)
            out.append(record(ts, path, "models", 206, size - start, rng=True, model=mid))
        elif roll < 0.20:  # revalidation of a cached file
            out.append(record(ts, path, "models", 304, 0, model=mid))
        else:
            out.append(record(ts, path, "models", 200, size, model=mid))
    for minute in range(0, 1440, 15):
        ts = date + datetime.timedelta(minutes=minute)
        out.append(record(ts, "/healthz", "health", 200, 15))
        out.append(record(ts + datetime.timedelta(seconds=1), "/metrics", "metrics", 200, 4100))
    return sorted(out, key=lambda r: r["ts"])


def main():
    w = sys.stdout.write
    for day in range(DAYS):
        for r in day_records(day):
            w(json.dumps(r, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
