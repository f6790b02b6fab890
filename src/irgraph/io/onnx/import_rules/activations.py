"""ONNX -> IR rules for activations: the IR ops of the same formula (Elu, Selu, PReLU, Clamp, LogSoftmax,
SoftPlus, HSwish, Mish, ...) and small patterns where IR has no single op (Celu, Shrink, ThresholdedRelu).
Each pattern is explained; attribute combinations IR cannot compute as ONNX does are refused naming the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.cnn import softmax_like
from irgraph.io.onnx.import_rules.helpers import (
    alias_output,
    element_type_of,
    float_only,
    helper_layer,
    node_inputs,
    one_output,
    ports_of,
    static_rank,
    unary_input,
)
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Op
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.elu import Elu
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
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.sign import Sign
from irgraph.ops.arithmetic.sinh import Sinh
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.arithmetic.tan import Tan
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.is_nan import IsNaN
from irgraph.ops.comparison.less import Less
from irgraph.ops.condition.select import Select
from irgraph.ops.shape.unsqueeze import Unsqueeze

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


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
    data, _ = unary_input(context)
    context.emit(SIMPLE_ACTIVATIONS[context.node.op_type][0](), [data])


for _op_type, (_, _versions) in SIMPLE_ACTIVATIONS.items():
    imports(_op_type, versions=_versions)(simple_activation)


@imports("Elu", versions=(1, 6, 22))
def elu(context: ImportContext) -> None:
    """Elu -> Elu-1 with alpha (1.0 by default)."""
    data, attributes = unary_input(context, {"alpha": "FLOAT", "consumed_inputs": "INTS"})
    context.emit(Elu(alpha=float(attributes.get("alpha", 1.0))), [data])


@imports("Selu", versions=(1, 6, 22))
def selu(context: ImportContext) -> None:
    """Selu -> Selu-1, its alpha and gamma (ONNX's defaults) as scalar Consts of the data's type."""
    data, attributes = unary_input(context, {"alpha": "FLOAT", "gamma": "FLOAT", "consumed_inputs": "INTS"})
    element_type = float_only(context, data)
    alpha = context.const(attributes.get("alpha", 1.67326319217681884765625), element_type, "alpha")
    gamma = context.const(attributes.get("gamma", 1.05070102214813232421875), element_type, "lambda")
    context.emit(Selu(), [data, alpha, gamma])


@imports("LeakyRelu", versions=(1, 6, 16))
def leaky_relu(context: ImportContext) -> None:
    """LeakyRelu -> PReLU-1 with a one-element slope (alpha, 0.01 by default)."""
    data, attributes = unary_input(context, {"alpha": "FLOAT", "consumed_inputs": "INTS"})
    slope = context.const([attributes.get("alpha", 0.01)], element_type_of(context, data), "alpha")
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
    data, attributes = unary_input(context, {"alpha": "FLOAT"})
    beta = context.const(attributes.get("alpha", 1.0), float_only(context, data), "alpha")
    context.emit(Swish(), [data, beta])


@imports("HardSigmoid", versions=(1, 6, 22))
def hard_sigmoid(context: ImportContext) -> None:
    """HardSigmoid -> HardSigmoid-1 with alpha (0.2) and beta (0.5) as scalar Consts."""
    data, attributes = unary_input(context, {"alpha": "FLOAT", "beta": "FLOAT", "consumed_inputs": "INTS"})
    element_type = float_only(context, data)
    alpha = context.const(attributes.get("alpha", 0.2), element_type, "alpha")
    beta = context.const(attributes.get("beta", 0.5), element_type, "beta")
    context.emit(HardSigmoid(), [data, alpha, beta])


@imports("Celu", versions=(12, 28))
def celu(context: ImportContext) -> None:
    """Celu (no IR op) -> alpha * Elu(x / alpha, 1): Divide-1, Elu-1, Multiply-1."""
    data, attributes = unary_input(context, {"alpha": "FLOAT"})
    element_type = float_only(context, data)
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
    data, attributes = unary_input(context, {"alpha": "FLOAT"})
    element_type = float_only(context, data)
    alpha = attributes.get("alpha", 1.0)
    above = helper_layer(context, Greater(), [data, context.const(alpha, element_type, "alpha")],
                         "above")
    context.emit(Select(), [above, data, context.const(0, element_type, "zero")])
    context.explain(f"{context.label}: -> Select-1(x > {alpha}, x, 0) (IR has no ThresholdedRelu)")


@imports("Shrink", versions=(9,))
def shrink(context: ImportContext) -> None:
    """Shrink (no IR op) -> Select-1(x < -lambd, x + bias, Select-1(x > lambd, x - bias, 0))."""
    data, attributes = unary_input(context, {"bias": "FLOAT", "lambd": "FLOAT"})
    element_type = element_type_of(context, data)
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
    element_type = element_type_of(context, data)
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
