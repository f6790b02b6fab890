"""ONNX -> IR rules for linear quantization: DequantizeLinear and QuantizeLinear as the element-wise patterns their
formulas are (IR's FakeQuantize rounds and clamps in another order, so it is not used).

* DequantizeLinear: ``(x - zero_point) * scale``. Integer x and zero point are subtracted in i32 (exact, as
  onnxruntime does) and converted to the scale's type once, then multiplied.
* QuantizeLinear: ``saturate(round_half_even(x / scale) + zero_point)`` to an integer type; to float8
  ``x / scale + zero_point`` converted (saturated to the largest finite value when ``saturate``).

A 1-D scale of per-axis quantization gets 1s around ``axis`` (Unsqueeze-1) so numpy broadcasting puts it there.
Blocked quantization (``block_size``) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from irgraph.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.common import element_type_from_onnx, port_type
from irgraph.io.onnx.import_registry import rule
from irgraph.io.onnx.import_rules import const_of, helper_layer, node_inputs, one_output, static_rank
from irgraph.io.onnx.import_rules_tensor import SATURATED
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.split import NodeContext, NodeConverter

VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)


def _allowed(context: NodeContext, quantize: bool) -> dict[str, str]:
    allowed: dict[str, str] = {}
    version = context.version
    if version >= 13:
        allowed["axis"] = "INT"
    if version >= 19 and quantize:
        allowed["saturate"] = "INT"
    if version >= 21:
        allowed["block_size"] = "INT"
        if quantize or version >= 23:
            allowed["output_dtype"] = "INT"
    if version >= 23 and quantize:
        allowed["precision"] = "INT"
    return allowed


def _placed(cv: NodeConverter, context: NodeContext, port: OutputPort, data: OutputPort, axis: int,
            what: str) -> OutputPort:
    """A per-axis 1-D operand with 1s around ``axis`` of ``data``; a one-element operand as it is."""
    shape = port_type(cv.im.model, port).shape
    if not shape.rank_is_dynamic and (shape.rank == 0 or (shape.is_static and shape.to_tuple() == (1,))):
        return port
    if shape.rank_is_dynamic or shape.rank != 1:
        raise context.fail(f"its {what} must be a scalar or 1-D (per axis); got {shape} (blocked quantization is "
                           "not converted)")
    rank = static_rank(cv, data, context, "x")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise context.fail(f"axis {axis} is out of range for rank {rank}")
    around = [a for a in range(rank) if a != axis]
    if not around:
        return port
    return helper_layer(cv, context, Unsqueeze(), [port, const_of(cv, context, around, ElementType.I64,
                                                                  f"{what}_axes")], what)


def _common(cv: NodeConverter, context: NodeContext, quantize: bool) -> tuple[dict[str, Any], list[OutputPort]]:
    attributes = cv._attributes(context, _allowed(context, quantize))
    one_output(context)
    if attributes.get("block_size", 0):
        raise context.fail(f"block_size={attributes['block_size']} (blocked quantization) is not converted")
    names = node_inputs(context, 2, 3)
    ports = [cv.im.tensor(name, context.label) for name in names]
    axis = attributes.get("axis", 1)
    placed = [ports[0]] + [_placed(cv, context, port, ports[0], axis, what)
                           for port, what in zip(ports[1:], ("scale", "zero_point"), strict=False)]
    return attributes, placed


@rule("DequantizeLinear", versions=VERSIONS)
def dequantize_linear(cv: NodeConverter, context: NodeContext) -> None:
    """DequantizeLinear -> Convert-1, Subtract-1 and Multiply-1 (module docstring)."""
    attributes, (x, scale, *zero) = _common(cv, context, quantize=False)
    target = port_type(cv.im.model, scale).element_type
    if attributes.get("output_dtype", 0):
        wanted = element_type_from_onnx(cv.onnx, attributes["output_dtype"], f"{context.label} output_dtype")
        if wanted is not target:
            raise context.fail(f"output_dtype {wanted} differs from the scale's type {target}")
    source = port_type(cv.im.model, x).element_type
    if source.is_integral:
        value = helper_layer(cv, context, Convert(destination_type=ElementType.I32), [x], "x_i32")
        if zero:
            point = helper_layer(cv, context, Convert(destination_type=ElementType.I32), [zero[0]], "zero_i32")
            value = helper_layer(cv, context, Subtract(), [value, point], "shifted")
        value = helper_layer(cv, context, Convert(destination_type=target), [value], "x_real")
    else:
        value = helper_layer(cv, context, Convert(destination_type=target), [x], "x_real")
        if zero:
            point = helper_layer(cv, context, Convert(destination_type=target), [zero[0]], "zero_real")
            value = helper_layer(cv, context, Subtract(), [value, point], "shifted")
    cv._emit(context, Multiply(), [value, scale])
    in_i32 = ", Subtract-1 in i32" if zero and source.is_integral else ""
    cv.im.explain(f"{context.label}: -> (x - zero_point) * scale: Convert-1{in_i32}, Multiply-1 in {target}")


def _limits(element_type: ElementType) -> tuple[float, float]:
    dtype = np.dtype(element_type.numpy_dtype)
    info = ml_dtypes.iinfo(dtype) if dtype.kind == "V" else np.iinfo(dtype)
    return float(info.min), float(info.max)


@rule("QuantizeLinear", versions=VERSIONS)
def quantize_linear(cv: NodeConverter, context: NodeContext) -> None:
    """QuantizeLinear -> Divide-1, Round-5 half_to_even, Add-1, Clamp-1, Convert-1 (module docstring)."""
    attributes, (x, scale, *zero) = _common(cv, context, quantize=True)
    if attributes.get("precision", 0):
        raise context.fail("the precision attribute is not converted (irgraph computes in the input's type)")
    if zero:
        target = port_type(cv.im.model, zero[0]).element_type
    elif attributes.get("output_dtype", 0):
        target = element_type_from_onnx(cv.onnx, attributes["output_dtype"], f"{context.label} output_dtype")
    else:
        target = ElementType.U8
    real = port_type(cv.im.model, x).element_type
    if real not in (ElementType.F32, ElementType.F64):
        x = helper_layer(cv, context, Convert(destination_type=ElementType.F32), [x], "x_f32")
        real = ElementType.F32
    if port_type(cv.im.model, scale).element_type is not real:
        scale = helper_layer(cv, context, Convert(destination_type=real), [scale], "scale_real")
    value = helper_layer(cv, context, Divide(m_pythondiv=False), [x, scale], "scaled")
    integral = target.is_integral
    if integral:
        value = helper_layer(cv, context, Round(mode="half_to_even"), [value], "rounded")
    if zero:
        point = helper_layer(cv, context, Convert(destination_type=real), [zero[0]], "zero_real")
        value = helper_layer(cv, context, Add(), [value, point], "shifted")
    if integral:
        low, high = _limits(target)
        value = helper_layer(cv, context, Clamp(min=low, max=high), [value], "saturated")
    elif target in SATURATED and attributes.get("saturate", 1):
        value = helper_layer(cv, context, Clamp(min=-SATURATED[target], max=SATURATED[target]), [value], "saturated")
    elif target not in SATURATED:
        raise context.fail(f"quantizing to {target} is not converted")
    cv._emit(context, Convert(destination_type=target), [value])
    cv.im.explain(f"{context.label}: -> x / scale{', rounded half to even' if integral else ''}, + zero_point, "
                  f"clamped, Convert-1 to {target}")
