"""Element-wise ops: binary arithmetic, comparisons, logical and bitwise ops, unary math (the activations with
parameters or patterns are in ``activations``).

Binary ops keep their ``auto_broadcast``: numpy is ONNX's broadcasting, none has equal shapes
already (shape inference checked them), pdpd becomes numpy's after a Squeeze/Unsqueeze of input 1
(``patterns.broadcast_inputs``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import broadcast_inputs, cast, onnx_type_code, scalar_initializer
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.identity import Identity
from irgraph.ops.activation.relu import Relu
from irgraph.ops.activation.sigmoid import Sigmoid
from irgraph.ops.activation.soft_plus import SoftPlus
from irgraph.ops.activation.soft_sign import SoftSign
from irgraph.ops.arithmetic.abs import Abs
from irgraph.ops.arithmetic.acos import Acos
from irgraph.ops.arithmetic.acosh import Acosh
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.asin import Asin
from irgraph.ops.arithmetic.asinh import Asinh
from irgraph.ops.arithmetic.atan import Atan
from irgraph.ops.arithmetic.atanh import Atanh
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.arithmetic.cos import Cos
from irgraph.ops.arithmetic.cosh import Cosh
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.erf import Erf
from irgraph.ops.arithmetic.floor import Floor
from irgraph.ops.arithmetic.floor_mod import FloorMod
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.mod import Mod
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.negative import Negative
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.arithmetic.round import Round
from irgraph.ops.arithmetic.sign import Sign
from irgraph.ops.arithmetic.sin import Sin
from irgraph.ops.arithmetic.sinh import Sinh
from irgraph.ops.arithmetic.sqrt import Sqrt
from irgraph.ops.arithmetic.squared_difference import SquaredDifference
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.arithmetic.tan import Tan
from irgraph.ops.arithmetic.tanh import Tanh
from irgraph.ops.bitwise.bitwise_and import BitwiseAnd
from irgraph.ops.bitwise.bitwise_left_shift import BitwiseLeftShift
from irgraph.ops.bitwise.bitwise_not import BitwiseNot
from irgraph.ops.bitwise.bitwise_or import BitwiseOr
from irgraph.ops.bitwise.bitwise_right_shift import BitwiseRightShift
from irgraph.ops.bitwise.bitwise_xor import BitwiseXor
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.is_finite import IsFinite
from irgraph.ops.comparison.is_inf import IsInf
from irgraph.ops.comparison.is_nan import IsNaN
from irgraph.ops.comparison.less import Less
from irgraph.ops.comparison.less_equal import LessEqual
from irgraph.ops.comparison.not_equal import NotEqual
from irgraph.ops.condition.select import Select
from irgraph.ops.logical.logical_and import LogicalAnd
from irgraph.ops.logical.logical_not import LogicalNot
from irgraph.ops.logical.logical_or import LogicalOr
from irgraph.ops.logical.logical_xor import LogicalXor
from irgraph.ops.logical.xor import Xor

_BINARY = {
    Add: "Add", Subtract: "Sub", Multiply: "Mul", Power: "Pow",
    Equal: "Equal", Greater: "Greater", GreaterEqual: "GreaterOrEqual", Less: "Less", LessEqual: "LessOrEqual",
    LogicalAnd: "And", LogicalOr: "Or", LogicalXor: "Xor", Xor: "Xor",
}
"""IR binary ops whose ONNX op computes the same values under numpy broadcasting."""

_BITWISE = {BitwiseAnd: ("BitwiseAnd", "And"), BitwiseOr: ("BitwiseOr", "Or"), BitwiseXor: ("BitwiseXor", "Xor")}
"""Bitwise ops: the ONNX op for integers (opset 18) and for booleans (ONNX's bitwise ops take no bool)."""

_UNARY = {
    Abs: "Abs", Acos: "Acos", Acosh: "Acosh", Asin: "Asin", Asinh: "Asinh", Atan: "Atan", Atanh: "Atanh",
    Cos: "Cos", Cosh: "Cosh", Erf: "Erf", Log: "Log", Negative: "Neg",
    Sign: "Sign", Sin: "Sin", Sinh: "Sinh", Sqrt: "Sqrt", Tan: "Tan", Tanh: "Tanh", Exp: "Exp",
    Relu: "Relu", Sigmoid: "Sigmoid", SoftPlus: "Softplus", SoftSign: "Softsign", IsNaN: "IsNaN",
    LogicalNot: "Not", Identity: "Identity",
}
"""IR unary ops with an ONNX op of the same name and values."""


@exports(*_BINARY)
def binary(node: Node, op: Any, ctx: ExportContext) -> list:
    """Add, Subtract, ..., comparisons and logical ops: one ONNX node of the same meaning."""
    made: list = []
    inputs = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    made.append(ctx.make(node, _BINARY[type(op)], inputs, ctx.outputs(node)))
    return made


@exports(Maximum, Minimum)
def maximum_minimum(node: Node, op: Any, ctx: ExportContext) -> list:
    """Max/Min for integers; floats as OpenVINO's std::max / std::min, ``a < b ? b : a`` / ``b < a ? b : a``
    (a Less and a Where): ONNX's Max and Min differ on NaN and on -0.0 against 0.0."""
    made: list = []
    a, b = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    if not ctx.input_type(node, 0).element_type.is_real:
        made.append(ctx.make(node, "Max" if isinstance(op, Maximum) else "Min", [a, b], ctx.outputs(node)))
        return made
    takes_b = ctx.temp(node, "takes_b")
    made += [ctx.make(node, "Less", [a, b] if isinstance(op, Maximum) else [b, a], [takes_b], step="takes_b"),
             ctx.make(node, "Where", [takes_b, b, a], ctx.outputs(node))]
    return made


@exports(NotEqual)
def not_equal(node: Node, op: NotEqual, ctx: ExportContext) -> list:
    """ONNX has no NotEqual: Not(Equal)."""
    made: list = []
    inputs = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    equal = ctx.temp(node, "equal")
    made.append(ctx.make(node, "Equal", inputs, [equal], step="equal"))
    made.append(ctx.make(node, "Not", [equal], ctx.outputs(node)))
    return made


@exports(*_BITWISE)
def bitwise(node: Node, op: Any, ctx: ExportContext) -> list:
    """BitwiseAnd/Or/Xor: ONNX's bitwise op for integers, its logical op for booleans."""
    made: list = []
    inputs = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    integer, logical = _BITWISE[type(op)]
    boolean = ctx.input_type(node, 0).element_type is ElementType.BOOLEAN
    made.append(ctx.make(node, logical if boolean else integer, inputs, ctx.outputs(node)))
    return made


@exports(BitwiseNot)
def bitwise_not(node: Node, op: BitwiseNot, ctx: ExportContext) -> list:
    """BitwiseNot: ONNX BitwiseNot (opset 18), Not for booleans."""
    boolean = ctx.input_type(node, 0).element_type is ElementType.BOOLEAN
    return [ctx.make(node, "Not" if boolean else "BitwiseNot", ctx.inputs(node), ctx.outputs(node))]


@exports(BitwiseLeftShift, BitwiseRightShift)
def bitwise_shift(node: Node, op: Any, ctx: ExportContext) -> list:
    """x86's shifts (OpenVINO's reference) through ONNX's unsigned BitShift: the data promoted to 32 bits
    (64 for 64-bit types) and viewed unsigned, the count masked to the promoted width; a signed right
    shift is arithmetic, ~(~x >> n) where x < 0; the result cast back (wrapping) to the data type."""
    made: list = []
    a, b = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    element_type = ctx.input_type(node, 0).element_type
    dtype = element_type.numpy_dtype
    if dtype is None:
        raise ctx.refuse(f"{element_type} has no NumPy type to shift")
    wide_bits = max(dtype.itemsize, 4) * 8
    signed = dtype.kind == "i"
    unsigned = ElementType.U64 if wide_bits == 64 else ElementType.U32
    signed_wide = ElementType.I64 if wide_bits == 64 else ElementType.I32
    data = a
    if signed and element_type is not signed_wide:
        data = cast(ctx, node, data, signed_wide, "promoted", made)  # sign-extends
    if element_type is not unsigned:
        data = cast(ctx, node, data, unsigned, "bits", made)  # the same bits, unsigned
    count = cast(ctx, node, b, unsigned, "count", made) if ctx.input_type(node, 1).element_type is not unsigned \
        else b
    mask = ctx.initializer(node, "width_mask", np.asarray(wide_bits - 1, unsigned.numpy_dtype))
    masked = ctx.temp(node, "masked_count")
    made.append(ctx.make(node, "BitwiseAnd", [count, mask], [masked], step="masked_count"))
    direction = "LEFT" if isinstance(op, BitwiseLeftShift) else "RIGHT"
    shifted = ctx.temp(node, "shifted")
    made.append(ctx.make(node, "BitShift", [data, masked], [shifted], step="shifted", direction=direction))
    result = shifted
    if signed and direction == "RIGHT":
        names = {s: ctx.temp(node, s) for s in ("inverted", "inverted_shifted", "negative_result", "negative",
                                                "arithmetic")}
        zero = ctx.initializer(node, "zero", np.asarray(0, dtype))
        made += [
            ctx.make(node, "BitwiseNot", [data], [names["inverted"]], step="inverted"),
            ctx.make(node, "BitShift", [names["inverted"], masked], [names["inverted_shifted"]],
                     step="inverted_shifted", direction="RIGHT"),
            ctx.make(node, "BitwiseNot", [names["inverted_shifted"]], [names["negative_result"]],
                     step="negative_result"),
            ctx.make(node, "Less", [a, zero], [names["negative"]], step="negative"),
        ]
        # Chosen among signed values: onnxruntime 1.31.1 has no Where kernel for uint64.
        negative_result = cast(ctx, node, names["negative_result"], signed_wide, "negative_signed", made)
        shifted = cast(ctx, node, shifted, signed_wide, "shifted_signed", made)
        made.append(ctx.make(node, "Where", [names["negative"], negative_result, shifted], [names["arithmetic"]],
                             step="arithmetic"))
        result = names["arithmetic"]
    elif signed:
        result = cast(ctx, node, result, signed_wide, "signed", made)
    output = ctx.outputs(node)[0]
    if element_type is unsigned or element_type is signed_wide:
        made.append(ctx.make(node, "Identity", [result], [output]))
        return made
    made.append(ctx.make(node, "Cast", [result], [output], to=onnx_type_code(element_type)))
    return made


@exports(Divide)
def divide(node: Node, op: Divide, ctx: ExportContext) -> list:
    """Div; signed integers with ``m_pythondiv`` (floor division) get the floor correction ONNX's
    truncating Div lacks: q - (q * b != a and (a < 0) != (b < 0))."""
    made: list = []
    a, b = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    element_type = ctx.input_type(node, 0).element_type
    if not (op.m_pythondiv and element_type.is_integral and element_type.ir_name.startswith("i")):  # signed
        made.append(ctx.make(node, "Div", [a, b], ctx.outputs(node)))
        return made
    names = {step: ctx.temp(node, step) for step in
             ("q", "qb", "inexact", "a_neg", "b_neg", "signs", "floor", "correction")}
    zero = scalar_initializer(ctx, node, "zero", 0, element_type)
    made += [
        ctx.make(node, "Div", [a, b], [names["q"]], step="q"),
        ctx.make(node, "Mul", [names["q"], b], [names["qb"]], step="qb"),
        ctx.make(node, "Equal", [names["qb"], a], [names["inexact"] + "_eq"], step="exact"),
        ctx.make(node, "Not", [names["inexact"] + "_eq"], [names["inexact"]], step="inexact"),
        ctx.make(node, "Less", [a, zero], [names["a_neg"]], step="a_neg"),
        ctx.make(node, "Less", [b, zero], [names["b_neg"]], step="b_neg"),
        ctx.make(node, "Xor", [names["a_neg"], names["b_neg"]], [names["signs"]], step="signs"),
        ctx.make(node, "And", [names["inexact"], names["signs"]], [names["floor"]], step="floor"),
        ctx.make(node, "Cast", [names["floor"]], [names["correction"]], step="correction",
                 to=onnx_type_code(element_type)),
        ctx.make(node, "Sub", [names["q"], names["correction"]], ctx.outputs(node)),
    ]
    return made


@exports(Mod)
def mod(node: Node, op: Mod, ctx: ExportContext) -> list:
    """Mod (the sign of the dividend): ONNX Mod fmod=1 for integers (C's exact %); floats as OpenVINO's
    reference computes them, a - trunc(a / b) * b (trunc is Ceil below 0, Floor above), not the exact fmod."""
    made: list = []
    a, b = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    element_type = ctx.input_type(node, 0).element_type
    if not element_type.is_real:
        made.append(ctx.make(node, "Mod", [a, b], ctx.outputs(node), fmod=1))
        return made
    zero = scalar_initializer(ctx, node, "zero", 0, element_type)
    steps = {step: ctx.temp(node, step) for step in ("quotient", "negative", "ceil", "floor", "trunc", "product")}
    made += [
        ctx.make(node, "Div", [a, b], [steps["quotient"]], step="quotient"),
        ctx.make(node, "Less", [steps["quotient"], zero], [steps["negative"]], step="negative"),
        ctx.make(node, "Ceil", [steps["quotient"]], [steps["ceil"]], step="ceil"),
        ctx.make(node, "Floor", [steps["quotient"]], [steps["floor"]], step="floor"),
        ctx.make(node, "Where", [steps["negative"], steps["ceil"], steps["floor"]], [steps["trunc"]], step="trunc"),
        ctx.make(node, "Mul", [steps["trunc"], b], [steps["product"]], step="product"),
        ctx.make(node, "Sub", [a, steps["product"]], ctx.outputs(node)),
    ]
    return made


@exports(FloorMod)
def floor_mod(node: Node, op: FloorMod, ctx: ExportContext) -> list:
    """FloorMod (the sign of the divisor): ONNX Mod fmod=0 for integers; floats (which ONNX's Mod
    takes only with fmod=1) are fmod corrected by the divisor where the signs differ."""
    made: list = []
    a, b = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    element_type = ctx.input_type(node, 0).element_type
    if not element_type.is_real:
        made.append(ctx.make(node, "Mod", [a, b], ctx.outputs(node), fmod=0))
        return made
    zero = scalar_initializer(ctx, node, "zero", 0, element_type)
    steps = {step: ctx.temp(node, step) for step in ("fmod", "r_neg", "b_neg", "signs", "nonzero", "fix", "shift")}
    made += [
        ctx.make(node, "Mod", [a, b], [steps["fmod"]], step="fmod", fmod=1),
        ctx.make(node, "Less", [steps["fmod"], zero], [steps["r_neg"]], step="r_neg"),
        ctx.make(node, "Less", [b, zero], [steps["b_neg"]], step="b_neg"),
        ctx.make(node, "Xor", [steps["r_neg"], steps["b_neg"]], [steps["signs"]], step="signs"),
        ctx.make(node, "Equal", [steps["fmod"], zero], [steps["nonzero"]], step="zero"),
        ctx.make(node, "Not", [steps["nonzero"]], [steps["nonzero"] + "_not"], step="nonzero"),
        ctx.make(node, "And", [steps["signs"], steps["nonzero"] + "_not"], [steps["fix"]], step="fix"),
        # fmod + b where the signs differ, fmod + 0 elsewhere: a -0.0 remainder becomes +0.0, as
        # OpenVINO's x - y * floor(x / y) gives it.
        ctx.make(node, "Where", [steps["fix"], b, zero], [steps["shift"]], step="shift"),
        ctx.make(node, "Add", [steps["fmod"], steps["shift"]], ctx.outputs(node)),
    ]
    return made


@exports(SquaredDifference)
def squared_difference(node: Node, op: SquaredDifference, ctx: ExportContext) -> list:
    """(a - b)^2: Sub then Mul by itself."""
    made: list = []
    inputs = broadcast_inputs(ctx, node, op.auto_broadcast, made)
    difference = ctx.temp(node, "difference")
    made.append(ctx.make(node, "Sub", inputs, [difference], step="difference"))
    made.append(ctx.make(node, "Mul", [difference, difference], ctx.outputs(node)))
    return made


@exports(Select)
def select(node: Node, op: Select, ctx: ExportContext) -> list:
    """Select -> Where (numpy broadcasting; pdpd aligns the else branch to the then branch). Booleans select
    as ``Or(And(c, a), And(Not(c), b))``: onnxruntime 1.31.1 has no Where kernel for bool (GPT-2's causal mask)."""
    made: list = []
    inputs = broadcast_inputs(ctx, node, op.auto_broadcast, made, indices=(1, 2))
    if ctx.output_type(node, 0).element_type is not ElementType.BOOLEAN:
        made.append(ctx.make(node, "Where", inputs, ctx.outputs(node)))
        return made
    condition, then, otherwise = inputs
    chosen, negated, other = (ctx.temp(node, s) for s in ("then", "not", "else"))
    made += [ctx.make(node, "And", [condition, then], [chosen], step="then"),
             ctx.make(node, "Not", [condition], [negated], step="not"),
             ctx.make(node, "And", [negated, otherwise], [other], step="else"),
             ctx.make(node, "Or", [chosen, other], ctx.outputs(node))]
    return made


@exports(*_UNARY)
def unary(node: Node, op: Any, ctx: ExportContext) -> list:
    """One ONNX op of the same meaning."""
    return [ctx.make(node, _UNARY[type(op)], ctx.inputs(node), ctx.outputs(node))]


@exports(IsInf)
def is_inf(node: Node, op: IsInf, ctx: ExportContext) -> list:
    """IsInf with the same detect_negative / detect_positive."""
    return [ctx.make(node, "IsInf", ctx.inputs(node), ctx.outputs(node),
                     detect_negative=int(op.detect_negative), detect_positive=int(op.detect_positive))]


@exports(IsFinite)
def is_finite(node: Node, op: IsFinite, ctx: ExportContext) -> list:
    """Not(IsInf or IsNaN)."""
    (x,) = ctx.inputs(node)
    inf, nan, either = ctx.temp(node, "inf"), ctx.temp(node, "nan"), ctx.temp(node, "either")
    return [ctx.make(node, "IsInf", [x], [inf], step="inf"), ctx.make(node, "IsNaN", [x], [nan], step="nan"),
            ctx.make(node, "Or", [inf, nan], [either], step="either"),
            ctx.make(node, "Not", [either], ctx.outputs(node))]


@exports(Floor, Ceiling)
def floor_ceiling(node: Node, op: Any, ctx: ExportContext) -> list:
    """Floor and Ceil; on integers (Swin's Floor of an i64 size) an Identity, as OpenVINO's reference passes
    them (ONNX's Floor and Ceil take floats only)."""
    if ctx.input_type(node, 0).element_type.is_real:
        return [ctx.make(node, "Floor" if isinstance(op, Floor) else "Ceil", ctx.inputs(node), ctx.outputs(node))]
    return [ctx.make(node, "Identity", ctx.inputs(node), ctx.outputs(node))]


@exports(Round)
def round_(node: Node, op: Round, ctx: ExportContext) -> list:
    """half_to_even is ONNX Round; half_away_from_zero is Sign(x) * Floor(|x| + 0.5); integers pass."""
    (x,) = ctx.inputs(node)
    element_type = ctx.input_type(node, 0).element_type
    if not element_type.is_real:
        return [ctx.make(node, "Identity", [x], ctx.outputs(node))]
    if op.mode == "half_to_even":
        return [ctx.make(node, "Round", [x], ctx.outputs(node))]
    names = {step: ctx.temp(node, step) for step in ("abs", "plus_half", "floor", "sign")}
    half = scalar_initializer(ctx, node, "half", 0.5, element_type)
    return [ctx.make(node, "Abs", [x], [names["abs"]], step="abs"),
            ctx.make(node, "Add", [names["abs"], half], [names["plus_half"]], step="plus_half"),
            ctx.make(node, "Floor", [names["plus_half"]], [names["floor"]], step="floor"),
            ctx.make(node, "Sign", [x], [names["sign"]], step="sign"),
            ctx.make(node, "Mul", [names["sign"], names["floor"]], ctx.outputs(node))]
