"""The models the benchmarks run, built three ways: irgraph's builder, OpenVINO (IR files) and ONNX.

The IR files are written by OpenVINO itself (``openvino.opset13`` + ``ov.serialize``), so both
sides read the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import irgraph as ir

SHAPE_A = (1, 64, 256, 256)
"""(a) and (b): a 16 MiB f32 tensor split into 8 along axis 1 and joined in reverse."""
PARTS_A = 8

CHAIN_STAGES = 6_667
"""(c) and (d): Parameter, then 6,667 x (axis Const, Split in 2, Concat reversed), then Result: 20,003 layers."""
CHAIN_SHAPE = (1, 2, 8)

CHAIN_E = ((1, "split", 8), (2, "variadic", (100, -1, 300)), (3, "split", 4), (1, "split", 2))
"""(e): the stages (axis, kind, parts) of a split/concat chain; each joins its parts in reverse."""


def input_a(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(SHAPE_A, dtype=np.float32)


def expected_a(x: np.ndarray) -> np.ndarray:
    return np.concatenate(np.split(x, PARTS_A, axis=1)[::-1], axis=1)


# ------------------------------------------------------------------------------ irgraph builder
def irgraph_a() -> ir.Model:
    model = ir.Model("split_concat")
    x = model.parameter("x", list(SHAPE_A), "f32")
    parts = model.split(x, axis=1, num_splits=PARTS_A)
    model.result(model.concat(list(reversed(parts)), axis=1), name="y")
    return model


def irgraph_chain_e(shape: tuple[int, ...]) -> ir.Model:
    """The (e) chain on an input of ``shape``: every stage splits along its axis and joins reversed."""
    model = ir.Model("chain_e")
    value = model.parameter("x", list(shape), "f32")
    for axis, kind, parts in CHAIN_E:
        if kind == "split":
            pieces = model.split(value, axis=axis, num_splits=parts)
        else:
            pieces = model.variadic_split(value, axis=axis, lengths=list(parts))
        value = model.concat(list(reversed(pieces)), axis=axis)
    model.result(value, name="y")
    return model


def numpy_chain_e(x: np.ndarray) -> np.ndarray:
    """What the (e) chain computes, the plain NumPy way (every stage writes a new array)."""
    for axis, kind, parts in CHAIN_E:
        if kind == "split":
            pieces = np.split(x, parts, axis=axis)
        else:
            lengths = list(parts)
            lengths[lengths.index(-1)] = x.shape[axis] - sum(n for n in lengths if n != -1)
            pieces = np.split(x, np.cumsum(lengths)[:-1], axis=axis)
        x = np.concatenate(pieces[::-1], axis=axis)
    return x


# ------------------------------------------------------------------------------ OpenVINO
def openvino_a():
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(list(SHAPE_A), ov.Type.f32, name="x")
    split = ops.split(x, ops.constant(np.int64(1)), PARTS_A)
    joined = ops.concat([split.output(i) for i in reversed(range(PARTS_A))], 1)
    joined.output(0).get_tensor().set_names({"y"})
    return ov.Model([ops.result(joined)], [x], "split_concat")


def openvino_chain_e(shape: tuple[int, ...]):
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(list(shape), ov.Type.f32, name="x")
    value = x.output(0)
    for axis, kind, parts in CHAIN_E:
        if kind == "split":
            node = ops.split(value, ops.constant(np.int64(axis)), parts)
        else:
            node = ops.variadic_split(value, ops.constant(np.int64(axis)), ops.constant(np.array(parts, np.int64)))
        value = ops.concat([node.output(i) for i in reversed(range(len(node.outputs())))], axis).output(0)
    value.get_tensor().set_names({"y"})
    return ov.Model([ops.result(value)], [x], "chain_e")


def openvino_chain_20k():
    """Parameter -> 6,667 x (Split in 2 on axis 1 with its own axis Const, Concat reversed) -> Result."""
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(list(CHAIN_SHAPE), ov.Type.f32, name="x")
    value = x.output(0)
    for _ in range(CHAIN_STAGES):
        split = ops.split(value, ops.constant(np.int64(1)), 2)
        value = ops.concat([split.output(1), split.output(0)], 1).output(0)
    value.get_tensor().set_names({"y"})
    return ov.Model([ops.result(value)], [x], "chain_20k")


def openvino_named_chain_20k():
    """The (c) chain with a tensor name on every output port, as converted models have (20,003 layers)."""
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(list(CHAIN_SHAPE), ov.Type.f32, name="x")
    value = x.output(0)
    for stage in range(CHAIN_STAGES):
        axis = ops.constant(np.int64(1 + stage % 2))
        axis.output(0).get_tensor().set_names({f"axis_{stage}"})
        split = ops.split(value, axis, 2)
        for index in range(2):
            split.output(index).get_tensor().set_names({f"split_{stage}.{index}"})
        value = ops.concat([split.output(1), split.output(0)], 1 + stage % 2).output(0)
        value.get_tensor().set_names({f"concat_{stage}", f"concat_{stage}:alias"})
    return ov.Model([ops.result(value)], [x], "named_chain_20k")


def openvino_weights_chain_20k():
    """4,000 x (a distinct weight Const joined on, VariadicSplit back) with names everywhere: 20,002 layers,
    each weight at its own .bin offset, like a real model's Consts."""
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter(list(CHAIN_SHAPE), ov.Type.f32, name="x")
    value = x.output(0)
    width = CHAIN_SHAPE[1]
    for stage in range(4_000):
        weight = ops.constant(np.full((1, 1, CHAIN_SHAPE[2]), stage, np.float32))
        weight.output(0).get_tensor().set_names({f"weight_{stage}"})
        joined = ops.concat([value, weight.output(0)], 1)
        joined.output(0).get_tensor().set_names({f"joined_{stage}"})
        parts = ops.variadic_split(joined, ops.constant(np.int64(1)), ops.constant(np.array([width, 1], np.int64)))
        for index in range(2):
            parts.output(index).get_tensor().set_names({f"parts_{stage}.{index}"})
        value = parts.output(0)
    return ov.Model([ops.result(value)], [x], "weights_chain_20k")


def openvino_big_const(elements: int):
    """A Const of ``elements`` f32 (1 GiB for 2**28) joined to a small input along axis 0."""
    import openvino as ov
    import openvino.opset13 as ops

    width = 1024
    rows = elements // width
    data = np.arange(rows * width, dtype=np.float32).reshape(rows, width)  # distinct rows: no dedup
    x = ops.parameter([1, width], ov.Type.f32, name="x")
    joined = ops.concat([ops.constant(data, ov.Type.f32), x], 0)
    joined.output(0).get_tensor().set_names({"y"})
    return ov.Model([ops.result(joined)], [x], "big_const")


def write_ir(model, xml: Path) -> Path:
    """Write an OpenVINO model as IR (no fp16 compression) with ``ov.serialize``."""
    import openvino as ov

    ov.serialize(model, str(xml), str(xml.with_suffix(".bin")))
    return xml


# ------------------------------------------------------------------------------ ONNX
def onnx_a(path: Path) -> Path:
    """The (a) model as ONNX opset 18 (Split with num_outputs, Concat)."""
    import onnx
    from onnx import TensorProto, helper

    names = [f"p{i}" for i in range(PARTS_A)]
    graph = helper.make_graph(
        [
            helper.make_node("Split", ["x"], names, axis=1, num_outputs=PARTS_A),
            helper.make_node("Concat", list(reversed(names)), ["y"], axis=1),
        ],
        "split_concat",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE_A))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(SHAPE_A))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
