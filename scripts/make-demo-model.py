#!/usr/bin/env python3
"""Builds the shipped demo model: a tiny real ONNX graph (4-input logistic regression,
y = sigmoid(x·W + b)), checked with onnx.checker. Deterministic bytes, so re-running it
reproduces the committed file and its SHA-256.

    python3 -m venv /tmp/onnx && /tmp/onnx/bin/pip install onnx
    /tmp/onnx/bin/python scripts/make-demo-model.py demo.onnx

Then publish it with `modelctl publish demo.onnx --sdk-min 1.0 --label demo --models-dir models`
(or see docs/decisions/catalog.md for how the shipped catalog entry was made).
"""
import hashlib
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

def build() -> onnx.ModelProto:
    # Weights of a "will the user accept the upsell prompt" toy model over 4 features.
    w = numpy_helper.from_array(np.array([[0.8], [-0.5], [1.2], [0.3]], dtype=np.float32), "W")
    b = numpy_helper.from_array(np.array([-0.25], dtype=np.float32), "B")
    x = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("probability", TensorProto.FLOAT, ["batch", 1])
    nodes = [
        helper.make_node("MatMul", ["features", "W"], ["logit0"]),
        helper.make_node("Add", ["logit0", "B"], ["logit"]),
        helper.make_node("Sigmoid", ["logit"], ["probability"]),
    ]
    graph = helper.make_graph(nodes, "modeld_demo_logistic_regression", [x], [y], [w, b])
    model = helper.make_model(
        graph,
        producer_name="modeld make-demo-model.py",
        producer_version="1",
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 7  # readable by every onnxruntime since 1.8
    model.doc_string = "modeld demo: 4-input logistic regression"
    onnx.checker.check_model(model, full_check=True)
    return model

def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "demo.onnx"
    data = build().SerializeToString()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
    with open(out, "wb") as f:
        f.write(data)
    print(f"{out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")

if __name__ == "__main__":
    main()
