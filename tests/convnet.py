"""A small real network written by the real OpenVINO: an ONNX conv net (onnx.helper) converted by ``ov.convert_model``.

conv1 -> relu1 -> pool1 -> conv2 -> relu2 -> add2 (+ a constant) -> split -> concat (swapped halves)
-> global average pool -> flatten -> fc (Gemm) -> softmax. ``ov.save_model`` keeps its default
``compress_to_fp16=True``, so weights are f16 Consts followed by a Convert with ``decompression``
rt_info, as in the files OpenVINO users have. Tensor names (ONNX's): x, c1, r1, p1, c2, r2, a2, s0,
s1, cat, gap, flat, logits, prob.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

INPUT_SHAPE = (1, 3, 16, 16)


def write_convnet(directory: Path, name: str = "convnet", compress_to_fp16: bool = True) -> Path:
    """Write ``name.xml``/``name.bin`` (and ``name.onnx``) into ``directory`` with OpenVINO; return the .xml."""
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(20261123)

    def weights(tensor_name: str, shape: list[int]) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), tensor_name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Add", ["r2", "bias3"], ["a2"], name="add2"),
        helper.make_node("Split", ["a2"], ["s0", "s1"], name="split", axis=1, num_outputs=2),
        helper.make_node("Concat", ["s1", "s0"], ["cat"], name="concat", axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "wf", "bf"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], name="softmax", axis=1),
    ]
    initializers = [weights("w1", [8, 3, 3, 3]), weights("b1", [8]), weights("w2", [8, 8, 3, 3]), weights("b2", [8]),
                    weights("bias3", [1, 8, 1, 1]), weights("wf", [10, 8]), weights("bf", [10])]
    graph = helper.make_graph(
        nodes, "convnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(INPUT_SHAPE))],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    onnx_path = directory / f"{name}.onnx"
    onnx.save(model, str(onnx_path))
    xml = directory / f"{name}.xml"
    ov.save_model(ov.convert_model(str(onnx_path)), str(xml), compress_to_fp16=compress_to_fp16)
    return xml


def ov_resave(source: Path, destination: Path) -> None:
    """Read ``source`` with OpenVINO and save it again (what a user round-tripping a file through OpenVINO gets)."""
    import openvino as ov

    ov.save_model(ov.Core().read_model(str(source)), str(destination), compress_to_fp16=False)


def ov_tensors(xml: Path, feeds: dict[str, np.ndarray], names: list[str]) -> dict[str, np.ndarray]:
    """The tensors ``names`` of the model in ``xml`` as OpenVINO's CPU plugin (f32 precision) computes them."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    have = {name for output in model.outputs for name in output.get_names()}
    extra = [name for name in names if name not in have]
    if extra:
        model.add_outputs(extra)
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(feeds)
    found: dict[str, np.ndarray] = {}
    for index, output in enumerate(model.outputs):
        for name in output.get_names():
            found[name] = np.asarray(results[compiled.outputs[index]])
    return {name: found[name] for name in names}
