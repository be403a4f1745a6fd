#!/usr/bin/env python3
"""Writes event segments as another modeld instance would have (SPEC §5: opening commit record,
groups of lines each followed by its commit record) for the guard benchmark: CLIENTS clients with
EVENTS_PER_CLIENT events each of the guard's metric, interleaved (round r holds every client's
r-th event), so the evaluator's per-client table sees clients in hash order, as in production.
A client's model_id is the one its arm is served (SPEC §3 bucket of challenger:client < 50:
the challenger, else the baseline), so every client counts in an arm.

usage: gen_segments.py DAY_DIR CHALLENGER BASELINE CLIENTS EVENTS_PER_CLIENT RECEIVED_AT
"""
import hashlib
import os
import sys

day_dir, challenger, baseline = sys.argv[1:4]
clients, per_client = int(sys.argv[4]), int(sys.argv[5])
received_at = sys.argv[6]
GROUP = 50                 # lines per commit group: one POST batch of 50 events
SEGMENT_LINES = 1_000_000  # lines per segment file

os.makedirs(day_dir, exist_ok=True)
ids = [f"{c:08x}-b5e1-4c3a-9d7e-{c:012x}" for c in range(clients)]
models = [challenger if int.from_bytes(hashlib.sha256(f"{challenger}:{i}".encode()).digest()[:4], "big") % 100 < 50
          else baseline for i in ids]

segment, written, out = 0, 0, None
group, group_bytes = [], 0


def commit(lines, size):
    return f'{{"commit":{{"lines":{lines},"bytes":{size}}}}}\n'


def flush_group():
    global group, group_bytes
    if group:
        out.write("".join(group))
        out.write(commit(len(group), group_bytes))
        group, group_bytes = [], 0


for r in range(per_client):
    for c in range(clients):
        if written % SEGMENT_LINES == 0:
            flush_group()
            if out:
                out.close()
            segment += 1
            out = open(os.path.join(day_dir, f"gen-{segment:06d}.jsonl"), "w")
            out.write(commit(0, 0))
        outcome = "purchased" if (c * 7 + r * 13) % 10 < 3 else "dismissed"
        line = (f'{{"name":"upsell_prompt","ts":"2026-11-24T05:00:00Z","model_id":"{models[c]}","outcome":"{outcome}",'
                f'"props":{{"screen":"paywall_v2","battery":0.8}},"received_at":"{received_at}","batch_id":"g{r}-{c // GROUP}",'
                f'"client_id":"{ids[c]}","sdk":"2.3","seq":{c % GROUP},"instance":"gen"}}\n')
        group.append(line)
        group_bytes += len(line)
        written += 1
        if len(group) == GROUP:
            flush_group()
flush_group()
out.close()
print(f"{written} events of {clients} clients in {segment} segment(s)")
