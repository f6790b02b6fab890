"""ONNX -> IR rules for element-wise math and reductions beyond the model zoo's (activations are in
``activations``): the IR ops of the same formula (Round, Mod, IsInf, bitwise ops, ...), and small patterns where
IR has no single op (Reciprocal, Mean, ReduceLogSumExp, Size, ...). Each pattern is explained; attribute
combinations IR cannot compute as ONNX does are refused naming the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.helpers import (
    element_type_of,
    float_only,
    helper_layer,
    node_inputs,
    one_output,
    ports_of,
    static_rank,
    text,
    unary_input,
)
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.io.onnx.import_rules.tensor import reduction_axes
from irgraph.ops import Op
from irgraph.ops.activation.exp import Exp
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_not import BitwiseNot
from irgraph.ops.bitwise.bitwise_or import BitwiseOr
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from irgraph.ops.bitwise.bitwise_xor import BitwiseXor
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.is_inf import IsInf
from irgraph.ops.comparison.less import Less
from irgraph.ops.comparison.less_equal import LessEqual
from irgraph.ops.condition.select import Select
from irgraph.ops.logical.logical_and import LogicalAnd
from irgraph.ops.logical.logical_xor import LogicalXor
from irgraph.ops.reduction.reduce_l1 import ReduceL1
from irgraph.ops.reduction.reduce_l2 import ReduceL2
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_prod import ReduceProd
from irgraph.ops.reduction.reduce_sum import ReduceSum
from irgraph.ops.shape.shape_of import ShapeOf3

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


# ------------------------------------------------------------------------------------ element-wise arithmetic
@imports("Reciprocal", versions=(1, 6, 13))
def reciprocal(context: ImportContext) -> None:
    """Reciprocal -> Divide-1(1, x)."""
    data, _ = unary_input(context, {"consumed_inputs": "INTS"})
    one = context.const(1, float_only(context, data), "one")
    context.emit(Divide(m_pythondiv=False), [one, data])
    context.explain(f"{context.label}: -> Divide-1(1, x)")


@imports("Round", versions=(11, 22))
def round_(context: ImportContext) -> None:
    """Round -> Round-5 half_to_even (ONNX rounds halves to even)."""
    data, _ = unary_input(context)
    context.emit(Round(mode="half_to_even"), [data])


@imports("Mod", versions=(10, 13, 28))
def mod(context: ImportContext) -> None:
    """Mod: fmod=0 (the remainder takes the divisor's sign) -> FloorMod-1; fmod=1 (the dividend's sign, C's fmod)
    -> Mod-1. Before Mod-28, ONNX forbids fmod=0 on floats."""
    attributes = context.attributes({"fmod": "INT"})
    one_output(context)
    a, b = ports_of(context, node_inputs(context, 2, 2))
    if attributes.get("fmod", 0):
        context.emit(Mod(), [a, b])
        if element_type_of(context, a).is_real:
            context.explain(f"{context.label}: fmod=1 on floats -> Mod-1, which computes a - trunc(a / b) * b as "
                            "OpenVINO's reference does (C's fmod is exact; they agree within float rounding)")
        return
    if element_type_of(context, a).is_real and context.version < 28:
        raise context.fail(f"fmod=0 on floating-point inputs is invalid in Mod-{context.version} (the spec requires "
                           "fmod=1 for floats before Mod-28)")
    context.emit(FloorMod(), [a, b])


@imports("IsInf", versions=(10, 20))
def is_inf(context: ImportContext) -> None:
    """IsInf -> IsInf-10 with detect_negative and detect_positive."""
    data, attributes = unary_input(context, {"detect_negative": "INT", "detect_positive": "INT"})
    context.emit(IsInf(detect_negative=bool(attributes.get("detect_negative", 1)),
                       detect_positive=bool(attributes.get("detect_positive", 1))), [data])


@imports("Mean", versions=(1, 6, 8, 13))
def mean(context: ImportContext) -> None:
    """Mean of n inputs -> a chain of Add-1, then Divide-1 by n (before opset 8 the inputs have one shape, so numpy
    broadcasting changes nothing)."""
    context.attributes({"consumed_inputs": "INTS"} if context.version == 1 else {})
    one_output(context)
    ports = ports_of(context, node_inputs(context, 1, 2**31))
    total = ports[0]
    for index, port in enumerate(ports[1:], start=1):
        total = helper_layer(context, Add(), [total, port], f"partial{index}")
    count = context.const(len(ports), float_only(context, ports[0]), "count")
    context.emit(Divide(m_pythondiv=False), [total, count])
    context.explain(f"{context.label}: {len(ports)} inputs -> Add-1 chain, Divide-1 by {len(ports)}")


BITWISE: dict[str, type[Op]] = {"BitwiseAnd": BitwiseAnd, "BitwiseOr": BitwiseOr, "BitwiseXor": BitwiseXor,
                                "Xor": LogicalXor}


@imports("BitwiseAnd", "BitwiseOr", "BitwiseXor", versions=(18,))
@imports("Xor", versions=(1, 7))
def bitwise(context: ImportContext) -> None:
    """BitwiseAnd/Or/Xor -> BitwiseAnd/Or/Xor-13; Xor (booleans) -> LogicalXor-1 (numpy broadcasting from
    opset 7)."""
    context.attributes({})
    one_output(context)
    if context.version < 7:
        raise context.fail("Xor-1 broadcasts with the 'broadcast'/'axis' attributes; irgraph converts opset 7 on")
    context.emit(BITWISE[context.node.op_type](), ports_of(context, node_inputs(context, 2, 2)))


@imports("BitwiseNot", versions=(18,))
def bitwise_not(context: ImportContext) -> None:
    """BitwiseNot -> BitwiseNot-13."""
    data, _ = unary_input(context)
    context.emit(BitwiseNot(), [data])


@imports("BitShift", versions=(11, 28))
def bit_shift(context: ImportContext) -> None:
    """BitShift -> BitwiseLeftShift-15 / BitwiseRightShift-15 by ``direction`` (unsigned types only in ONNX)."""
    attributes = context.attributes({"direction": "STRING"})
    one_output(context)
    direction = text(attributes.get("direction", b""))
    if direction not in ("LEFT", "RIGHT"):
        raise context.fail(f"direction must be LEFT or RIGHT; got {direction!r}")
    op = BitwiseLeftShift() if direction == "LEFT" else BitwiseRightShift()
    data, amount = ports_of(context, node_inputs(context, 2, 2))
    if context.version < 28:
        context.emit(op, [data, amount])
        return
    # BitShift-28: a shift below 0 or of the bit width or more gives 0 (RIGHT of a negative value: -1); OpenVINO's
    # shifts leave those to C, so they are selected explicitly.
    element_type = element_type_of(context, data)
    bits = np.dtype(element_type.numpy_dtype).itemsize * 8
    shifted = helper_layer(context, op, [data, amount], "shifted")
    zero = context.const(0, element_type, "zero")
    inside = helper_layer(context, LogicalAnd(), [
        helper_layer(context, GreaterEqual(), [amount, zero], "not_negative"),
        helper_layer(context, Less(), [amount, context.const(bits, element_type, "width")], "narrow")],
        "in_range")
    fill = zero
    if direction == "RIGHT" and np.iinfo(element_type.numpy_dtype).min < 0:
        fill = helper_layer(context, Select(), [
            helper_layer(context, Less(), [data, zero], "negative"), context.const(-1, element_type,
                                                                                 "minus_one"), zero], "fill")
    context.emit(Select(), [inside, shifted, fill])
    context.explain(f"{context.label}: shifts outside [0, {bits}) -> Select-1 of "
                    f"{'the sign' if fill is not zero else '0'} (BitShift-28 defines them; OpenVINO's shifts do not)")


# ------------------------------------------------------------------------------------ reductions
def _reduced(context: ImportContext) -> tuple[OutputPort, OutputPort | None, bool]:
    """The data, the axes port (None: the identity) and keepdims of an ONNX reduction."""
    attributes = context.attributes({"axes": "INTS", "keepdims": "INT", "noop_with_empty_axes": "INT"})
    one_output(context)
    names = node_inputs(context, 1, 2)
    data = context.tensor(names[0])
    axes = reduction_axes(context, attributes, names, data)
    return data, axes, bool(attributes.get("keepdims", 1))


REDUCE_VERSIONS = (1, 11, 13, 18)


@imports("ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", versions=REDUCE_VERSIONS)
@imports("ReduceLogSum", "ReduceLogSumExp", versions=(*REDUCE_VERSIONS, 28))
def reduce_pattern(context: ImportContext) -> None:
    """ReduceProd/L1/L2 -> the IR reduction; ReduceSumSquare -> ReduceSum-1 of x * x; ReduceLogSum -> Log-1 of
    ReduceSum-1; ReduceLogSumExp -> Log-1 of ReduceSum-1 of Exp-1 (no max subtracted, as ONNX's formula)."""
    data, axes, keep = _reduced(context)
    op_type = context.node.op_type
    if axes is None:
        raise context.fail("noop_with_empty_axes with no axes is the identity; not converted")
    direct = {"ReduceProd": ReduceProd, "ReduceL1": ReduceL1, "ReduceL2": ReduceL2}
    if op_type in direct:
        context.emit(direct[op_type](keep_dims=keep), [data, axes])
        return
    if op_type == "ReduceSumSquare":
        squared = helper_layer(context, Multiply(), [data, data], "squared")
        context.emit(ReduceSum(keep_dims=keep), [squared, axes])
        context.explain(f"{context.label}: -> ReduceSum-1 of x * x")
        return
    source = helper_layer(context, Exp(), [data], "exp") if op_type == "ReduceLogSumExp" else data
    total = helper_layer(context, ReduceSum(keep_dims=keep), [source, axes], "sum")
    context.emit(Log(), [total])
    context.explain(f"{context.label}: -> Log-1 of ReduceSum-1{' of Exp-1' if source is not data else ''}")


@imports("GlobalMaxPool", versions=(1, 22))
def global_max_pool(context: ImportContext) -> None:
    """GlobalMaxPool -> ReduceMax-1 over the spatial dims, kept."""
    data, _ = unary_input(context)
    rank = static_rank(data, context, "the input")
    axes = context.const(list(range(2, rank)), ElementType.I64, "axes")
    context.emit(ReduceMax(keep_dims=True), [data, axes])
    context.explain(f"{context.label}: -> ReduceMax-1 over axes {list(range(2, rank))}, keep_dims=true")


@imports("GlobalLpPool", versions=(2, 22))
def global_lp_pool(context: ImportContext) -> None:
    """GlobalLpPool with p 1 or 2 -> ReduceL1-4/ReduceL2-4 over the spatial dims, kept (other p: no IR op)."""
    data, attributes = unary_input(context, {"p": "INT"})
    p = attributes.get("p", 2)
    if p not in (1, 2):
        raise context.fail(f"p={p}: IR reduces by the L1 and L2 norms only")
    rank = static_rank(data, context, "the input")
    axes = context.const(list(range(2, rank)), ElementType.I64, "axes")
    context.emit((ReduceL1 if p == 1 else ReduceL2)(keep_dims=True), [data, axes])
    context.explain(f"{context.label}: p={p} -> ReduceL{p}-4 over axes {list(range(2, rank))}, keep_dims=true")


@imports("LpNormalization", versions=(1, 22))
def lp_normalization(context: ImportContext) -> None:
    """LpNormalization with p 1 or 2 -> Divide-1 of x by ReduceL1-4/ReduceL2-4 on the axis, kept (ONNX's formula,
    no epsilon), and Select-1 of 0 where the norm is 0."""
    data, attributes = unary_input(context, {"axis": "INT", "p": "INT"})
    p = attributes.get("p", 2)
    if p not in (1, 2):
        raise context.fail(f"p={p}: ONNX defines p 1 and 2 only")
    axis = context.const([attributes.get("axis", -1)], ElementType.I64, "axis")
    norm = helper_layer(context, (ReduceL1 if p == 1 else ReduceL2)(keep_dims=True), [data, axis], "norm")
    divided = helper_layer(context, Divide(m_pythondiv=False), [data, norm], "divided")
    zero = context.const(0, float_only(context, data), "zero")
    empty = helper_layer(context, Equal(), [norm, zero], "zero_norm")
    context.emit(Select(), [empty, zero, divided])
    context.explain(f"{context.label}: -> Divide-1 by ReduceL{p}-4 on axis {attributes.get('axis', -1)}, 0 where the "
                    "norm is 0 (as ONNX's reference gives)")


@imports("Size", versions=(1, 13, 19, 21, 23, 24, 25))
def size(context: ImportContext) -> None:
    """Size -> ReduceProd-1 of ShapeOf-3 (i64) over axis 0: an i64 scalar, 1 for a scalar input."""
    data, _ = unary_input(context)
    shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
    context.emit(ReduceProd(keep_dims=False), [shape, context.const([0], ElementType.I64, "axes")])
    context.explain(f"{context.label}: -> ReduceProd-1 of ShapeOf-3")


COMPARISONS: dict[str, type[Op]] = {"GreaterOrEqual": GreaterEqual, "LessOrEqual": LessEqual}


@imports("GreaterOrEqual", "LessOrEqual", versions=(12, 16))
def comparison(context: ImportContext) -> None:
    """GreaterOrEqual/LessOrEqual -> GreaterEqual-1/LessEqual-1 (numpy broadcasting)."""
    context.attributes({})
    one_output(context)
    context.emit(COMPARISONS[context.node.op_type](), ports_of(context, node_inputs(context, 2, 2)))
