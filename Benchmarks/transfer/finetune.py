#!/usr/bin/env python3
"""Generated fine-tunes (reference/tensor-transfer.md): N float32 weights ~ N(0, 0.05) as the
base, and the fine-tune w * (1 + N(0, r)) for each relative change r, as raw little-endian
float32 and float16 files. Usage: finetune.py OUT_DIR COUNT DTYPES [r ...] (DTYPES: f32,f16 or
one of them). Writes, per dtype d, base-d.bin and tuned-<r>-d.bin. Generated in slices of 16 M weights, so a 4 GiB
file never sits in memory whole."""
import os, sys
import numpy as np

out, count, dtypes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
rates = sys.argv[4:] or ["1e-3", "1e-2"]
rng = np.random.default_rng(30)
files = {(name, d): open(os.path.join(out, f"{name}-{d}.bin"), "wb")
         for name in ["base"] + [f"tuned-{r}" for r in rates] for d in dtypes}
step = 16 << 20
for start in range(0, count, step):
    base = (rng.standard_normal(min(step, count - start), dtype=np.float32) * np.float32(0.05))
    for name, w in [("base", base)] + [(f"tuned-{r}", base * (1 + np.float32(float(r)) * rng.standard_normal(base.size, dtype=np.float32))) for r in rates]:
        for d in dtypes:
            files[(name, d)].write(w.astype("<f4" if d == "f32" else "<f2").tobytes())
for f in files.values():
    f.close()
