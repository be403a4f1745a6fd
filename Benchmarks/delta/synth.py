#!/usr/bin/env python3
"""Synthetic fp16 weights as in ../shared/reference/delta-updates.md §2: a "transformer-like"
safetensors-layout file (d=1024, 8 layers, 32k vocab, Student-t(5)·0.02 weights, f16) and its
variants. Usage: synth.py OUT_DIR [SEED]. Writes base.safetensors and
  head.safetensors   the classifier head replaced (about 1 % of the bytes)
  shift.safetensors  the base with 64 bytes added to its header, which moves every tensor
  tuned.safetensors  every weight perturbed by N(0, (1e-2·σ)²) (a heavy fine-tune)
"""
import json, os, struct, sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 22)
d, layers, vocab = 1024, 8, 32000
shapes = [("embed", (vocab, d))]
for i in range(layers):
    shapes += [(f"l{i}.attn.qkv", (d, 3 * d)), (f"l{i}.attn.out", (d, d)), (f"l{i}.mlp.up", (d, 4 * d)), (f"l{i}.mlp.down", (4 * d, d))]
shapes += [("head", (vocab // 24, d))]   # a small task head: about 1 % of the file

def tensors():
    return {name: (rng.standard_t(5, size=shape) * 0.02).astype(np.float16) for name, shape in shapes}

def write(path, ts, pad=0):
    header, offset = {}, 0
    for name, _ in shapes:
        n = ts[name].nbytes
        header[name] = {"dtype": "F16", "shape": list(ts[name].shape), "data_offsets": [offset, offset + n]}
        offset += n
    header["__metadata__"] = {"format": "pt", "note": "x" * pad}
    h = json.dumps(header, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for name, _ in shapes:
            f.write(ts[name].tobytes())

base = tensors()
write(os.path.join(out, "base.safetensors"), base)
head = dict(base)
head["head"] = (rng.standard_t(5, size=base["head"].shape) * 0.02).astype(np.float16)
write(os.path.join(out, "head.safetensors"), head)
write(os.path.join(out, "shift.safetensors"), base, pad=64)
tuned = {k: (v.astype(np.float32) + rng.normal(0, 1e-2 * 0.02 * 1.29, v.shape)).astype(np.float16) for k, v in base.items()}
write(os.path.join(out, "tuned.safetensors"), tuned)
