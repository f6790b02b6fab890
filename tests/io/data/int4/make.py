"""Writes the int4 weight-compressed IR files beside this script with NNCF (not run by the tests; kept to say how
they were made): ``python make.py`` in an environment with nncf==3.4.0 and openvino==2026.4.1.

A Gather embedding and two MatMuls (one with a transposed weight) over f32 weights, compressed by
``nncf.compress_weights`` to int4 in groups of 32: symmetric (i4 weights, Convert f16 -> Multiply scale -> Reshape
-> Convert f32) and asymmetric (u4 weights and u4 zero points, Convert f16 -> Subtract -> Multiply -> Reshape ->
Convert f32). The ONNX export tests read them.
"""

import nncf
import numpy as np
import openvino as ov
from openvino import opset13 as ops

MODES = {
    "int4_sym": nncf.CompressWeightsMode.INT4_SYM,
    "int4_asym": nncf.CompressWeightsMode.INT4_ASYM,
}


def build() -> ov.Model:
    rng = np.random.default_rng(0)
    vocabulary, hidden, width = 32, 64, 32
    ids = ops.parameter([1, -1], ov.Type.i64, name="input_ids")
    table = ops.constant(rng.standard_normal((vocabulary, hidden)).astype(np.float32) * 0.05)
    embedded = ops.gather(table, ids, ops.constant(np.int64(0)))
    projected = ops.matmul(embedded, ops.constant(rng.standard_normal((width, hidden)).astype(np.float32) * 0.05),
                           False, True)
    logits = ops.matmul(projected, ops.constant(rng.standard_normal((width, vocabulary)).astype(np.float32) * 0.05),
                        False, False)
    logits.output(0).set_names({"logits"})
    return ov.Model([ops.result(logits)], [ids], "tiny-int4")


if __name__ == "__main__":
    for name, mode in MODES.items():
        compressed = nncf.compress_weights(build(), mode=mode, group_size=32, ratio=1.0, all_layers=True)
        ov.save_model(compressed, f"{name}.xml", compress_to_fp16=False)
