"""Write tests/data/realistic/resnet-block/: a small real-world-shaped IR written by OpenVINO itself.

An ONNX graph of two residual blocks (Conv, Relu, Add, a global average pool as ReduceMean, a
classifier MatMul; built with onnx.helper) converted by ``openvino.convert_model`` and saved with
``compress_to_fp16=True``, as OpenVINO's tools save models by default: the weights are f16 Consts
each followed by a Convert to f32 whose rt_info carries a ``decompression`` marker, and the model's
rt_info holds the conversion parameters. irgraph runs few of these ops yet, so this is the model the
"real models" behaviour of ir-validate / ir-info / ir-convert is tested on.

Run: ``python -m tests.oracle.make_realistic`` (needs openvino and onnx; seeded, so the weights
repeat; OpenVINO's rt_info names its version).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

DIRECTORY = Path(__file__).resolve().parents[1] / "data" / "realistic" / "resnet-block"
CHANNELS = 4


def build_onnx(path: Path) -> None:
    """The ONNX model: x[1,4,8,8] -> 2 residual blocks -> mean over H,W -> MatMul[4,3] -> y[1,3]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(14)
    nodes, weights = [], []
    current = "x"
    for block in range(2):
        start = current
        for conv in range(2):
            name = f"b{block}c{conv}"
            weights.append(numpy_helper.from_array(
                rng.normal(0, 0.3, (CHANNELS, CHANNELS, 3, 3)).astype(np.float32), f"{name}_w"))
            weights.append(numpy_helper.from_array(rng.normal(0, 0.1, CHANNELS).astype(np.float32), f"{name}_b"))
            nodes.append(helper.make_node("Conv", [current, f"{name}_w", f"{name}_b"], [f"{name}_out"], name=name,
                                          pads=[1, 1, 1, 1]))
            current = f"{name}_out"
            if conv == 0:
                nodes.append(helper.make_node("Relu", [current], [f"{name}_relu"], name=f"{name}_relu"))
                current = f"{name}_relu"
        nodes.append(helper.make_node("Add", [current, start], [f"b{block}_sum"], name=f"b{block}_add"))
        nodes.append(helper.make_node("Relu", [f"b{block}_sum"], [f"b{block}_out"], name=f"b{block}_relu"))
        current = f"b{block}_out"
    nodes.append(helper.make_node("ReduceMean", [current], ["pooled"], name="pool", axes=[2, 3], keepdims=0))
    weights.append(numpy_helper.from_array(rng.normal(0, 0.5, (CHANNELS, 3)).astype(np.float32), "fc_w"))
    nodes.append(helper.make_node("MatMul", ["pooled", "fc_w"], ["y"], name="fc"))
    graph = helper.make_graph(
        nodes, "resnet_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, CHANNELS, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="irgraph-tests")
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main() -> int:
    """Convert and save the model into DIRECTORY."""
    import openvino as ov

    DIRECTORY.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "model.onnx"
        build_onnx(source)
        model = ov.convert_model(source)
    ov.save_model(model, DIRECTORY / "model.xml", compress_to_fp16=True)
    print(f"wrote {DIRECTORY / 'model.xml'} and model.bin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
