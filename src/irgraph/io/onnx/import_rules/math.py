"""ONNX -> IR rules for activations, element-wise math and reductions beyond the model zoo's: the IR ops of the
same formula (Elu, Selu, PReLU, Clamp, LogSoftmax, SoftPlus, HSwish, Mish, ...), and small patterns where IR
has no single op (Celu, Shrink, ThresholdedRelu, Reciprocal, Mean, ReduceLogSumExp, Size, ...). Each pattern
is explained; attribute combinations IR cannot compute as ONNX does are refused naming the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.cnn import softmax_like
from irgraph.io.onnx.import_rules.helpers import (
    alias_output,
    helper_layer,
    node_inputs,
    one_output,
    ports_of,
    static_rank,
    text,
)
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.io.onnx.import_rules.tensor import reduction_axes
from irgraph.ops import Op
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.h_swish import HSwish
from irgraph.ops.activation.hard_sigmoid import HardSigmoid
from irgraph.ops.activation.log_softmax import LogSoftmax
from irgraph.ops.activation.mish import Mish
from irgraph.ops.activation.p_re_lu import PReLU
from irgraph.ops.activation.selu import Selu
from irgraph.ops.activation.soft_plus import SoftPlus
from irgraph.ops.activation.soft_sign import SoftSign
from irgraph.ops.activation.swish import Swish
from irgraph.ops.arithmetic.acos import Acos
from irgraph.ops.arithmetic.acosh import Acosh
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.asin import Asin
from irgraph.ops.arithmetic.asinh import Asinh
from irgraph.ops.arithmetic.atan import Atan
from irgraph.ops.arithmetic.atanh import Atanh
from irgraph.ops.arithmetic.cosh import Cosh
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.sign import Sign
from irgraph.ops.arithmetic.sinh import Sinh
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.arithmetic.tan import Tan
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_not import BitwiseNot
from irgraph.ops.bitwise.bitwise_or import BitwiseOr
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from irgraph.ops.bitwise.bitwise_xor import BitwiseXor
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.is_inf import IsInf
from irgraph.ops.comparison.is_nan import IsNaN
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
from irgraph.ops.shape.unsqueeze import Unsqueeze

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


def _unary(context: ImportContext, allowed: dict[str, str] | None = None) -> tuple[OutputPort, dict[str, Any]]:
    attributes = context.attributes(allowed or {})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    return data, attributes


def _type(context: ImportContext, port: OutputPort) -> ElementType:
    return context.type_of(port).element_type


def _float_only(context: ImportContext, port: OutputPort) -> ElementType:
    element_type = _type(context, port)
    if not element_type.is_real:
        raise context.fail(f"takes floating-point data; got {element_type}")
    return element_type


# ------------------------------------------------------------------------------------ activations: one IR op
SIMPLE_ACTIVATIONS: dict[str, tuple[type[Op], tuple[int, ...]]] = {
    "Softplus": (SoftPlus, (1, 22)), "Softsign": (SoftSign, (1, 22)), "HardSwish": (HSwish, (14, 22)),
    "Mish": (Mish, (18, 22)), "Sign": (Sign, (9, 13)), "IsNaN": (IsNaN, (9, 13, 20)),
    "Tan": (Tan, (7, 22)), "Asin": (Asin, (7, 22)), "Acos": (Acos, (7, 22)), "Atan": (Atan, (7, 22)),
    "Sinh": (Sinh, (9, 22)), "Cosh": (Cosh, (9, 22)), "Asinh": (Asinh, (9, 22)), "Acosh": (Acosh, (9, 22)),
    "Atanh": (Atanh, (9, 22)),
}
"""ONNX ops with no attribute -> the IR op of the same formula, and the ONNX versions known."""


def simple_activation(context: ImportContext) -> None:
    """Softplus -> SoftPlus-4, Softsign -> SoftSign-9, HardSwish -> HSwish-4, Mish -> Mish-4, Sign -> Sign-1,
    IsNaN -> IsNaN-10, Tan/Asin/.../Atanh -> the IR op of the name: the same formula, no attributes."""
    data, _ = _unary(context)
    context.emit(SIMPLE_ACTIVATIONS[context.node.op_type][0](), [data])


for _op_type, (_, _versions) in SIMPLE_ACTIVATIONS.items():
    imports(_op_type, versions=_versions)(simple_activation)


@imports("Elu", versions=(1, 6, 22))
def elu(context: ImportContext) -> None:
    """Elu -> Elu-1 with alpha (1.0 by default)."""
    data, attributes = _unary(context, {"alpha": "FLOAT", "consumed_inputs": "INTS"})
    context.emit(Elu(alpha=float(attributes.get("alpha", 1.0))), [data])


@imports("Selu", versions=(1, 6, 22))
def selu(context: ImportContext) -> None:
    """Selu -> Selu-1, its alpha and gamma (ONNX's defaults) as scalar Consts of the data's type."""
    data, attributes = _unary(context, {"alpha": "FLOAT", "gamma": "FLOAT", "consumed_inputs": "INTS"})
    element_type = _float_only(context, data)
    alpha = context.const(attributes.get("alpha", 1.67326319217681884765625), element_type, "alpha")
    gamma = context.const(attributes.get("gamma", 1.05070102214813232421875), element_type, "lambda")
    context.emit(Selu(), [data, alpha, gamma])


@imports("LeakyRelu", versions=(1, 6, 16))
def leaky_relu(context: ImportContext) -> None:
    """LeakyRelu -> PReLU-1 with a one-element slope (alpha, 0.01 by default)."""
    data, attributes = _unary(context, {"alpha": "FLOAT", "consumed_inputs": "INTS"})
    slope = context.const([attributes.get("alpha", 0.01)], _type(context, data), "alpha")
    context.emit(PReLU(), [data, slope])
    context.explain(f"{context.label}: -> PReLU-1 with slope alpha={attributes.get('alpha', 0.01)}")


@imports("PRelu", versions=(1, 6, 7, 9, 16))
def prelu(context: ImportContext) -> None:
    """PRelu -> PReLU-1. ONNX broadcasts the slope numpy-style to X; IR's PReLU takes a 1-D slope as per-channel
    (axis 1), so a slope of lower rank is reshaped to X's rank first (leading 1s) and means what ONNX means."""
    context.attributes({"consumed_inputs": "INTS"})
    one_output(context)
    data, slope = ports_of(context, node_inputs(context, 2, 2))
    if context.version < 7:
        _legacy_prelu(context, data, slope)
        return
    rank = static_rank(data, context, "X")
    slope_shape = context.type_of(slope).shape
    if slope_shape.rank_is_dynamic:
        raise context.fail("the slope has a dynamic rank; IR's PReLU reads a 1-D slope per channel, so irgraph "
                           "needs the rank to reshape it to X's")
    if 1 <= slope_shape.rank < rank:
        leading = list(range(rank - slope_shape.rank))
        slope = helper_layer(context, Unsqueeze(), [slope, context.const(leading, ElementType.I64,
                                                                         "slope_axes")], "slope")
        context.explain(f"{context.label}: the slope gets {len(leading)} leading dims (numpy broadcasting; IR's "
                        "PReLU would read a 1-D slope per channel)")
    context.emit(PReLU(), [data, slope])


def _legacy_prelu(context: ImportContext, data: OutputPort, slope: OutputPort) -> None:
    """PRelu before opset 7: one slope shared by every element, or one per channel (dim 1): IR's PReLU rule."""
    data_shape = context.type_of(data).shape
    slope_shape = context.type_of(slope).shape
    channels = None if data_shape.rank_is_dynamic or data_shape.rank < 2 else data_shape[1]
    one = slope_shape.is_static and slope_shape.rank <= 1 and np.prod(slope_shape.to_tuple()) == 1
    per_channel = not slope_shape.rank_is_dynamic and slope_shape.rank == 1 and channels is not None and \
        channels.is_static and slope_shape[0].is_static and slope_shape[0].value == channels.value
    if not (one or per_channel):
        raise context.fail(f"PRelu-{context.version} takes one slope or one per channel; got slope {slope_shape} for "
                           f"X {data_shape}")
    context.emit(PReLU(), [data, slope])
    context.explain(f"{context.label}: -> PReLU-1 ({'one slope' if one else 'a slope per channel'}, as PRelu-"
                    f"{context.version} says)")


@imports("Swish", versions=(24,))
def swish(context: ImportContext) -> None:
    """Swish -> Swish-4 with its alpha (1.0 by default) as the beta input: x * sigmoid(alpha * x)."""
    data, attributes = _unary(context, {"alpha": "FLOAT"})
    beta = context.const(attributes.get("alpha", 1.0), _float_only(context, data), "alpha")
    context.emit(Swish(), [data, beta])


@imports("HardSigmoid", versions=(1, 6, 22))
def hard_sigmoid(context: ImportContext) -> None:
    """HardSigmoid -> HardSigmoid-1 with alpha (0.2) and beta (0.5) as scalar Consts."""
    data, attributes = _unary(context, {"alpha": "FLOAT", "beta": "FLOAT", "consumed_inputs": "INTS"})
    element_type = _float_only(context, data)
    alpha = context.const(attributes.get("alpha", 0.2), element_type, "alpha")
    beta = context.const(attributes.get("beta", 0.5), element_type, "beta")
    context.emit(HardSigmoid(), [data, alpha, beta])


@imports("Celu", versions=(12, 28))
def celu(context: ImportContext) -> None:
    """Celu (no IR op) -> alpha * Elu(x / alpha, 1): Divide-1, Elu-1, Multiply-1."""
    data, attributes = _unary(context, {"alpha": "FLOAT"})
    element_type = _float_only(context, data)
    alpha = attributes.get("alpha", 1.0)
    if alpha == 0:
        raise context.fail("alpha=0 divides by zero (ONNX's formula is undefined there)")
    scale = context.const(alpha, element_type, "alpha")
    scaled = helper_layer(context, Divide(m_pythondiv=False), [data, scale], "scaled")
    unit = helper_layer(context, Elu(alpha=1.0), [scaled], "elu")
    context.emit(Multiply(), [unit, scale])
    context.explain(f"{context.label}: -> alpha * Elu-1(x / alpha) with alpha={alpha} (IR has no Celu)")


@imports("ThresholdedRelu", versions=(10, 22))
def thresholded_relu(context: ImportContext) -> None:
    """ThresholdedRelu (no IR op) -> Select-1(x > alpha, x, 0)."""
    data, attributes = _unary(context, {"alpha": "FLOAT"})
    element_type = _float_only(context, data)
    alpha = attributes.get("alpha", 1.0)
    above = helper_layer(context, Greater(), [data, context.const(alpha, element_type, "alpha")],
                         "above")
    context.emit(Select(), [above, data, context.const(0, element_type, "zero")])
    context.explain(f"{context.label}: -> Select-1(x > {alpha}, x, 0) (IR has no ThresholdedRelu)")


@imports("Shrink", versions=(9,))
def shrink(context: ImportContext) -> None:
    """Shrink (no IR op) -> Select-1(x < -lambd, x + bias, Select-1(x > lambd, x - bias, 0))."""
    data, attributes = _unary(context, {"bias": "FLOAT", "lambd": "FLOAT"})
    element_type = _type(context, data)
    bias, lambd = attributes.get("bias", 0.0), attributes.get("lambd", 0.5)
    if not element_type.is_real and (bias != int(bias) or lambd != int(lambd)):
        raise context.fail(f"bias {bias} and lambd {lambd} must be whole numbers for {element_type} data (irgraph "
                           "does not guess how they would be rounded)")
    unsigned = element_type.is_integral and np.iinfo(element_type.numpy_dtype).min == 0
    minus = None if unsigned else context.const(-lambd, element_type, "minus_lambd")
    bias_port = context.const(bias, element_type, "bias")
    zero = context.const(0, element_type, "zero")
    above = helper_layer(context, Greater(), [data, context.const(lambd, element_type, "lambd")], "above")
    lowered = helper_layer(context, Subtract(), [data, bias_port], "lowered")
    if minus is None:  # unsigned data is never below -lambd
        context.emit(Select(), [above, lowered, zero])
    else:
        upper = helper_layer(context, Select(), [above, lowered, zero], "upper")
        below = helper_layer(context, Less(), [data, minus], "below")
        raised = helper_layer(context, Add(), [data, bias_port], "raised")
        context.emit(Select(), [below, raised, upper])
    context.explain(f"{context.label}: -> Select-1 of x+bias below -lambd, x-bias above lambd, else 0 (bias={bias}, "
                    f"lambd={lambd}; IR has no Shrink)")


@imports("Clip", versions=(1, 6, 11, 12, 13))
def clip(context: ImportContext) -> None:
    """Clip -> Clamp-1 when the bounds are constants with min <= max, else Maximum-1 then Minimum-1 (ONNX's
    min(max(x, lo), hi), what onnxruntime computes when lo > hi)."""
    if context.version < 11:
        attributes = context.attributes({"min": "FLOAT", "max": "FLOAT", "consumed_inputs": "INTS"})
        one_output(context)
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        lowest = float(np.finfo(np.float32).max)  # Clip-6's defaults: the f32 range, not infinities
        low: Any = attributes.get("min", -lowest)
        high: Any = attributes.get("max", lowest)
        bounds: list[OutputPort | None] = [None, None]
    else:
        context.attributes({})
        one_output(context)
        names = node_inputs(context, 1, 3)
        data = context.tensor(names[0])
        low = high = None
        bounds = [None, None]
        for index, name in enumerate(names[1:3]):
            if not name:
                continue
            found = context.constant(name)
            if found is None:
                bounds[index] = context.tensor(name)
                continue
            if np.size(found[1]) != 1:
                raise context.fail(f"its {'min' if index == 0 else 'max'} {name!r} must hold one value; got shape "
                                   f"{list(np.shape(found[1]))}")
            value = np.asarray(found[1]).reshape(-1)[0]
            if index == 0:
                low = value
            else:
                high = value
    element_type = _type(context, data)
    if bounds == [None, None] and (low is None or high is None or low <= high) and (low is not None or
                                                                                  high is not None):
        info = np.finfo(element_type.numpy_dtype) if element_type.is_real else np.iinfo(element_type.numpy_dtype)
        lo = float(low) if low is not None else float(-np.inf if element_type.is_real else info.min)
        hi = float(high) if high is not None else float(np.inf if element_type.is_real else info.max)
        if element_type.is_real or (float(int(lo)) == lo and float(int(hi)) == hi and abs(lo) < 2**53
                                    and abs(hi) < 2**53):
            context.emit(Clamp(min=lo, max=hi), [data])
            return
    if bounds == [None, None] and low is None and high is None:
        alias_output(context, context.node.input[0])
        return
    steps: list[tuple[type[Op], OutputPort]] = []
    for value, port, kind, what in ((low, bounds[0], Maximum, "min"), (high, bounds[1], Minimum, "max")):
        if port is None and value is not None:
            port = context.const(value, element_type, what)
        if port is not None:
            steps.append((kind, port))
    current = data
    for index, (op_class, port) in enumerate(steps):
        if index == len(steps) - 1:
            context.emit(op_class(), [current, port])
        else:
            current = helper_layer(context, op_class(), [current, port], "at_least_min")
    context.explain(f"{context.label}: -> Maximum-1 then Minimum-1 (bounds not constant, or min > max: ONNX's "
                    "min(max(x, min), max))")


@imports("LogSoftmax", versions=(1, 11, 13))
def log_softmax(context: ImportContext) -> None:
    """LogSoftmax -> LogSoftmax-5, with Softmax's 2D coercion before opset 13 (see ``softmax``)."""
    softmax_like(context, lambda axis: LogSoftmax(axis=axis), "LogSoftmax-5")


# ------------------------------------------------------------------------------------ element-wise arithmetic
@imports("Reciprocal", versions=(1, 6, 13))
def reciprocal(context: ImportContext) -> None:
    """Reciprocal -> Divide-1(1, x)."""
    data, _ = _unary(context, {"consumed_inputs": "INTS"})
    one = context.const(1, _float_only(context, data), "one")
    context.emit(Divide(m_pythondiv=False), [one, data])
    context.explain(f"{context.label}: -> Divide-1(1, x)")


@imports("Round", versions=(11, 22))
def round_(context: ImportContext) -> None:
    """Round -> Round-5 half_to_even (ONNX rounds halves to even)."""
    data, _ = _unary(context)
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
        if _type(context, a).is_real:
            context.explain(f"{context.label}: fmod=1 on floats -> Mod-1, which computes a - trunc(a / b) * b as "
                            "OpenVINO's reference does (C's fmod is exact; they agree within float rounding)")
        return
    if _type(context, a).is_real and context.version < 28:
        raise context.fail(f"fmod=0 on floating-point inputs is invalid in Mod-{context.version} (the spec requires "
                           "fmod=1 for floats before Mod-28)")
    context.emit(FloorMod(), [a, b])


@imports("IsInf", versions=(10, 20))
def is_inf(context: ImportContext) -> None:
    """IsInf -> IsInf-10 with detect_negative and detect_positive."""
    data, attributes = _unary(context, {"detect_negative": "INT", "detect_positive": "INT"})
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
    count = context.const(len(ports), _float_only(context, ports[0]), "count")
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
    data, _ = _unary(context)
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
    element_type = _type(context, data)
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
    data, _ = _unary(context)
    rank = static_rank(data, context, "the input")
    axes = context.const(list(range(2, rank)), ElementType.I64, "axes")
    context.emit(ReduceMax(keep_dims=True), [data, axes])
    context.explain(f"{context.label}: -> ReduceMax-1 over axes {list(range(2, rank))}, keep_dims=true")


@imports("GlobalLpPool", versions=(2, 22))
def global_lp_pool(context: ImportContext) -> None:
    """GlobalLpPool with p 1 or 2 -> ReduceL1-4/ReduceL2-4 over the spatial dims, kept (other p: no IR op)."""
    data, attributes = _unary(context, {"p": "INT"})
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
    data, attributes = _unary(context, {"axis": "INT", "p": "INT"})
    p = attributes.get("p", 2)
    if p not in (1, 2):
        raise context.fail(f"p={p}: ONNX defines p 1 and 2 only")
    axis = context.const([attributes.get("axis", -1)], ElementType.I64, "axis")
    norm = helper_layer(context, (ReduceL1 if p == 1 else ReduceL2)(keep_dims=True), [data, axis], "norm")
    divided = helper_layer(context, Divide(m_pythondiv=False), [data, norm], "divided")
    zero = context.const(0, _float_only(context, data), "zero")
    empty = helper_layer(context, Equal(), [norm, zero], "zero_norm")
    context.emit(Select(), [empty, zero, divided])
    context.explain(f"{context.label}: -> Divide-1 by ReduceL{p}-4 on axis {attributes.get('axis', -1)}, 0 where the "
                    "norm is 0 (as ONNX's reference gives)")


@imports("Size", versions=(1, 13, 19, 21, 23, 24, 25))
def size(context: ImportContext) -> None:
    """Size -> ReduceProd-1 of ShapeOf-3 (i64) over axis 0: an i64 scalar, 1 for a scalar input."""
    data, _ = _unary(context)
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

