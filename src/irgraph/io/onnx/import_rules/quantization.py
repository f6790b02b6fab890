"""ONNX -> IR rules for linear quantization: DequantizeLinear and QuantizeLinear as the element-wise patterns their
formulas are (IR's FakeQuantize rounds and clamps in another order, so it is not used).

* DequantizeLinear: ``(x - zero_point) * scale``. Integer x and zero point are subtracted in i32 (exact, as
  onnxruntime does) and converted to the scale's type once, then multiplied.
* QuantizeLinear: ``saturate(round_half_even(x / scale) + zero_point)`` to an integer type; to float8
  ``x / scale + zero_point`` converted (saturated to the largest finite value when ``saturate``).

A 1-D scale of per-axis quantization gets 1s around ``axis`` (Unsqueeze-1) so numpy broadcasting puts it there.
Blocked quantization (``block_size``) is refused. MatMulInteger and QLinearMatMul multiply in i32 exactly and
requantize as onnxruntime does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.common import element_type_from_onnx
from irgraph.io.onnx.import_rules.cnn import CONV_ATTRIBUTES, convolution
from irgraph.io.onnx.import_rules.helpers import helper_layer, node_inputs, one_output, static_rank
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.io.onnx.import_rules.tensor import SATURATED
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)


def _allowed(context: ImportContext, quantize: bool) -> dict[str, str]:
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


def _placed(context: ImportContext, port: OutputPort, data: OutputPort, axis: int,
            what: str) -> OutputPort:
    """A per-axis 1-D operand with 1s around ``axis`` of ``data``; a one-element operand as it is."""
    shape = context.type_of(port).shape
    if not shape.rank_is_dynamic and (shape.rank == 0 or (shape.is_static and shape.to_tuple() == (1,))):
        return port
    if shape.rank_is_dynamic or shape.rank != 1:
        raise context.fail(f"its {what} must be a scalar or 1-D (per axis); got {shape} (blocked quantization is "
                           "not converted)")
    rank = static_rank(data, context, "x")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise context.fail(f"axis {axis} is out of range for rank {rank}")
    around = [a for a in range(rank) if a != axis]
    if not around:
        return port
    return helper_layer(context, Unsqueeze(), [port, context.const(around, ElementType.I64,
                                                                   f"{what}_axes")], what)


def _common(context: ImportContext, quantize: bool) -> tuple[dict[str, Any], list[OutputPort]]:
    attributes = context.attributes(_allowed(context, quantize))
    one_output(context)
    if attributes.get("block_size", 0):
        raise context.fail(f"block_size={attributes['block_size']} (blocked quantization) is not converted")
    names = node_inputs(context, 2, 3)
    ports = [context.tensor(name) for name in names]
    axis = attributes.get("axis", 1)
    placed = [ports[0]] + [_placed(context, port, ports[0], axis, what)
                           for port, what in zip(ports[1:], ("scale", "zero_point"), strict=False)]
    return attributes, placed


@imports("DequantizeLinear", versions=VERSIONS)
def dequantize_linear(context: ImportContext) -> None:
    """DequantizeLinear -> Convert-1, Subtract-1 and Multiply-1 (module docstring)."""
    attributes, (x, scale, *zero) = _common(context, quantize=False)
    target = context.type_of(scale).element_type
    if attributes.get("output_dtype", 0):
        wanted = element_type_from_onnx(context.onnx, attributes["output_dtype"], f"{context.label} output_dtype")
        if wanted is not target:
            raise context.fail(f"output_dtype {wanted} differs from the scale's type {target}")
    source = context.type_of(x).element_type
    if source.is_integral:
        value = helper_layer(context, Convert(destination_type=ElementType.I32), [x], "x_i32")
        if zero:
            point = helper_layer(context, Convert(destination_type=ElementType.I32), [zero[0]], "zero_i32")
            value = helper_layer(context, Subtract(), [value, point], "shifted")
        value = helper_layer(context, Convert(destination_type=target), [value], "x_real")
    else:
        value = helper_layer(context, Convert(destination_type=target), [x], "x_real")
        if zero:
            point = helper_layer(context, Convert(destination_type=target), [zero[0]], "zero_real")
            value = helper_layer(context, Subtract(), [value, point], "shifted")
    context.emit(Multiply(), [value, scale])
    in_i32 = ", Subtract-1 in i32" if zero and source.is_integral else ""
    context.explain(f"{context.label}: -> (x - zero_point) * scale: Convert-1{in_i32}, Multiply-1 in {target}")


def _limits(element_type: ElementType) -> tuple[float, float]:
    dtype = np.dtype(element_type.numpy_dtype)
    info = ml_dtypes.iinfo(dtype) if dtype.kind == "V" else np.iinfo(dtype)
    return float(info.min), float(info.max)


@imports("QuantizeLinear", versions=VERSIONS)
def quantize_linear(context: ImportContext) -> None:
    """QuantizeLinear -> Divide-1, Round-5 half_to_even, Add-1, Clamp-1, Convert-1 (module docstring)."""
    attributes, (x, scale, *zero) = _common(context, quantize=True)
    if attributes.get("precision", 0):
        raise context.fail("the precision attribute is not converted (irgraph computes in the input's type)")
    if zero:
        target = context.type_of(zero[0]).element_type
    elif attributes.get("output_dtype", 0):
        target = element_type_from_onnx(context.onnx, attributes["output_dtype"], f"{context.label} output_dtype")
    else:
        target = ElementType.U8
    real = context.type_of(x).element_type
    if real not in (ElementType.F32, ElementType.F64):
        x = helper_layer(context, Convert(destination_type=ElementType.F32), [x], "x_f32")
        real = ElementType.F32
    if context.type_of(scale).element_type is not real:
        scale = helper_layer(context, Convert(destination_type=real), [scale], "scale_real")
    value = helper_layer(context, Divide(m_pythondiv=False), [x, scale], "scaled")
    integral = target.is_integral
    if integral:
        value = helper_layer(context, Round(mode="half_to_even"), [value], "rounded")
    if zero:
        point = helper_layer(context, Convert(destination_type=real), [zero[0]], "zero_real")
        value = helper_layer(context, Add(), [value, point], "shifted")
    if integral:
        low, high = _limits(target)
        value = helper_layer(context, Clamp(min=low, max=high), [value], "saturated")
    elif target in SATURATED and attributes.get("saturate", 1):
        value = helper_layer(context, Clamp(min=-SATURATED[target], max=SATURATED[target]), [value], "saturated")
    elif target not in SATURATED:
        raise context.fail(f"quantizing to {target} is not converted")
    context.emit(Convert(destination_type=target), [value])
    context.explain(f"{context.label}: -> x / scale{', rounded half to even' if integral else ''}, + zero_point, "
                    f"clamped, Convert-1 to {target}")


def _centered(context: ImportContext, port: OutputPort, zero: OutputPort | None, what: str,
              per_row: bool) -> OutputPort:
    """An integer operand minus its zero point, in i32 (a per-row zero point of A gets a trailing 1)."""
    value = helper_layer(context, Convert(destination_type=ElementType.I32), [port], f"{what}_i32")
    if zero is None:
        return value
    point = helper_layer(context, Convert(destination_type=ElementType.I32), [zero], f"{what}_zero_i32")
    shape = context.type_of(zero).shape
    if per_row and not shape.rank_is_dynamic and shape.rank == 1 and not (shape[0].is_static and shape[0].value == 1):
        point = helper_layer(context, Unsqueeze(), [point, context.const([-1], ElementType.I64,
                                                                         f"{what}_zero_axes")], f"{what}_zero_rows")
    return helper_layer(context, Subtract(), [value, point], f"{what}_centered")


def _integer_product(context: ImportContext, a: OutputPort, a_zero: OutputPort | None,
                     b: OutputPort, b_zero: OutputPort | None) -> tuple[OutputPort, OutputPort]:
    return (_centered(context, a, a_zero, "a", per_row=True), _centered(context, b, b_zero, "b",
                                                                             per_row=False))


@imports("MatMulInteger", versions=(10,))
def mat_mul_integer(context: ImportContext) -> None:
    """MatMulInteger -> MatMul-1 in i32 of (A - a_zero_point) and (B - b_zero_point), each converted to i32 and
    subtracted exactly (a per-row zero point of A broadcast over its columns)."""
    context.attributes({})
    one_output(context)
    names = node_inputs(context, 2, 4)
    names += [""] * (4 - len(names))
    a, b = (context.tensor(name) for name in names[:2])
    zeros = [context.tensor(name) if name else None for name in names[2:]]
    left, right = _integer_product(context, a, zeros[0], b, zeros[1])
    context.emit(MatMul(), [left, right])
    context.explain(f"{context.label}: -> MatMul-1 in i32 of the operands minus their zero points")


@imports("QLinearMatMul", versions=(10, 21))
def q_linear_mat_mul(context: ImportContext) -> None:
    """QLinearMatMul -> the i32 product of MatMulInteger, times a_scale * b_scale / y_scale (f32, in that order),
    rounded half to even, plus y_zero_point, saturated and converted: onnxruntime's requantization. Scales and
    zero points must be one value each (per-tensor)."""
    context.attributes({})
    one_output(context)
    names = node_inputs(context, 8, 8)
    a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero = (context.tensor(name) for name in names)
    for port, name in ((a_scale, names[1]), (a_zero, names[2]), (b_scale, names[4]), (b_zero, names[5]),
                       (y_scale, names[6]), (y_zero, names[7])):
        shape = context.type_of(port).shape
        if shape.rank_is_dynamic or not shape.is_static or int(np.prod(shape.to_tuple())) != 1:
            raise context.fail(f"{name!r} must hold one value (per-tensor quantization); got {shape}")
    left, right = _integer_product(context, a, a_zero, b, b_zero)
    product = helper_layer(context, MatMul(), [left, right], "product")
    scales = [a_scale, b_scale, y_scale]
    scales = [port if context.type_of(port).element_type is ElementType.F32 else helper_layer(
        context, Convert(destination_type=ElementType.F32), [port], f"scale{index}_f32")
        for index, port in enumerate(scales)]
    multiplier = helper_layer(context, Divide(m_pythondiv=False), [helper_layer(
        context, Multiply(), scales[:2], "scale_ab"), scales[2]], "multiplier")
    value = helper_layer(context, Multiply(), [helper_layer(
        context, Convert(destination_type=ElementType.F32), [product], "product_f32"), multiplier], "scaled")
    target = _requantize(context, value, y_zero)
    context.explain(f"{context.label}: -> i32 MatMul-1 of the centered operands, times a_scale * b_scale / y_scale, "
                    f"rounded half to even, + y_zero_point, clamped, Convert-1 to {target}")


def _requantize(context: ImportContext, value: OutputPort, y_zero: OutputPort) -> ElementType:
    """The layer's output from its scaled f32 values: rounded half to even, + y_zero_point, clamped to the
    zero point's type and converted to it (QLinearMatMul's and QLinearConv's last steps); that type."""
    value = helper_layer(context, Round(mode="half_to_even"), [value], "rounded")
    value = helper_layer(context, Add(), [value, helper_layer(
        context, Convert(destination_type=ElementType.F32), [y_zero], "y_zero_f32")], "shifted")
    target = context.type_of(y_zero).element_type
    low, high = _limits(target)
    value = helper_layer(context, Clamp(min=low, max=high), [value], "saturated")
    context.emit(Convert(destination_type=target), [value])
    return target


def _integer_convolution(context: ImportContext, attributes: dict[str, Any], x: OutputPort,
                         x_zero: OutputPort | None, w: OutputPort, w_zero: OutputPort | None) -> OutputPort:
    """The i32 convolution of (x - x_zero_point) and (w - w_zero_point); a per-output-channel w zero point gets
    trailing 1s."""
    left = _centered(context, x, x_zero, "x", per_row=False)
    right = helper_layer(context, Convert(destination_type=ElementType.I32), [w], "w_i32")
    if w_zero is not None:
        point = helper_layer(context, Convert(destination_type=ElementType.I32), [w_zero], "w_zero_i32")
        shape = context.type_of(w_zero).shape
        rank = static_rank(w, context, "w")
        if not shape.rank_is_dynamic and shape.rank == 1 and not (shape[0].is_static and shape[0].value == 1):
            point = helper_layer(context, Unsqueeze(), [point, context.const(list(range(1, rank)),
                                                                             ElementType.I64, "w_zero_axes")],
                                 "w_zero_channels")
        right = helper_layer(context, Subtract(), [right, point], "w_centered")
    op, right = convolution(context, attributes, left, right)
    return helper_layer(context, op, [left, right], "convolution")


@imports("ConvInteger", versions=(10,))
def conv_integer(context: ImportContext) -> None:
    """ConvInteger -> Convolution-1 (or GroupConvolution-1) in i32 of the operands minus their zero points."""
    attributes = context.attributes(CONV_ATTRIBUTES)
    one_output(context)
    names = node_inputs(context, 2, 4)
    names += [""] * (4 - len(names))
    x, w = (context.tensor(name) for name in names[:2])
    zeros = [context.tensor(name) if name else None for name in names[2:]]
    result = _integer_convolution(context, attributes, x, zeros[0], w, zeros[1])
    context.bind(result, context.node.output[0])
    context.explain(f"{context.label}: -> an i32 convolution of the operands minus their zero points")


@imports("QLinearConv", versions=(10,))
def q_linear_conv(context: ImportContext) -> None:
    """QLinearConv -> the i32 convolution of ConvInteger plus the i32 bias, times x_scale * w_scale / y_scale (f32,
    per output channel when w_scale is), rounded half to even, + y_zero_point, saturated and converted: onnxruntime's
    requantization."""
    attributes = context.attributes(CONV_ATTRIBUTES)
    one_output(context)
    names = node_inputs(context, 8, 9)
    x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero = (context.tensor(n) for n in names[:8])
    value = _integer_convolution(context, attributes, x, x_zero, w, w_zero)
    rank = static_rank(x, context, "x")
    if len(names) > 8 and names[8]:
        bias = helper_layer(context, Unsqueeze(), [context.tensor(names[8]), context.const(
            [0, *range(2, rank)], ElementType.I64, "bias_axes")], "bias")
        value = helper_layer(context, Add(), [value, bias], "biased")
    scales = [port if context.type_of(port).element_type is ElementType.F32 else helper_layer(
        context, Convert(destination_type=ElementType.F32), [port], f"scale{index}_f32")
        for index, port in enumerate((x_scale, w_scale, y_scale))]
    multiplier = helper_layer(context, Divide(m_pythondiv=False), [helper_layer(
        context, Multiply(), scales[:2], "scale_xw"), scales[2]], "multiplier")
    channels = context.type_of(w_scale).shape
    if not channels.rank_is_dynamic and channels.rank == 1 and not (channels[0].is_static and channels[0].value == 1):
        multiplier = helper_layer(context, Unsqueeze(), [multiplier, context.const(
            [0, *range(2, rank)], ElementType.I64, "multiplier_axes")], "multiplier_channels")
    value = helper_layer(context, Multiply(), [helper_layer(
        context, Convert(destination_type=ElementType.F32), [value], "value_f32"), multiplier], "scaled")
    target = _requantize(context, value, y_zero)
    context.explain(f"{context.label}: -> i32 convolution of the centered operands (+ bias), times x_scale * w_scale / "
                    f"y_scale, rounded half to even, + y_zero_point, clamped, Convert-1 to {target}")
