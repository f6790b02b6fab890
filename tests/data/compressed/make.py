"""Writes the weight-compressed IR files beside this script with NNCF (not run by the tests; kept to say how they
were made): ``python make.py`` in an environment with nncf==3.4.0 and openvino==2026.4.1.

A Gather embedding and two MatMuls (one with a transposed weight) over f32 weights, compressed by
``nncf.compress_weights`` six ways: int8 asymmetric and symmetric (per output channel), int4 symmetric and
asymmetric, nf4 and fp4 (f4e2m1; groups of 32). NNCF writes u8/i8/u4/i4/nf4/f4e2m1 Consts and
Convert -> f16 -> Subtract -> Multiply -> [Reshape] -> Convert f32 chains without the ``decompression`` rt_info mark.
``build()`` needs OpenVINO only: tests/cli/test_ir_diff_compression.py saves the uncompressed model it returns.
"""

import numpy as np
import openvino as ov
from openvino import opset13 as ops


def modes() -> dict:
    import nncf

    return {
        "int8_asym": {"mode": nncf.CompressWeightsMode.INT8_ASYM},
        "int8_sym": {"mode": nncf.CompressWeightsMode.INT8_SYM},
        "int4_sym": {"mode": nncf.CompressWeightsMode.INT4_SYM, "group_size": 32, "ratio": 1.0, "all_layers": True},
        "int4_asym": {"mode": nncf.CompressWeightsMode.INT4_ASYM, "group_size": 32, "ratio": 1.0, "all_layers": True},
        "nf4": {"mode": nncf.CompressWeightsMode.NF4, "group_size": 32, "ratio": 1.0, "all_layers": True},
        "fp4": {"mode": nncf.CompressWeightsMode.FP4, "group_size": 32, "ratio": 1.0, "all_layers": True},
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
    return ov.Model([ops.result(logits)], [ids], "tiny-compressed")


if __name__ == "__main__":
    import sys

    import nncf

    for name, options in modes().items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        ov.save_model(nncf.compress_weights(build(), **options), f"{name}.xml", compress_to_fp16=False)
