"""ONNX -> IR rules for the op set of transformer and general tensor models (BERT-, GPT-2-like exports):
element-wise math and logic, MatMul, Cast, Shape, Gather, Slice, Squeeze, reductions, Expand, Range, Tile,
Where, LayerNormalization and Gelu. One-to-one ops come from tables; the others are one function each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.common import element_type_from_onnx
from irgraph.io.onnx.import_rules.cnn import legacy_attributes, legacy_operands
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
from irgraph.ops import Op
from irgraph.ops.activation.clamp import Clamp
from irgraph.ops.activation.exp import Exp
from irgraph.ops.activation.gelu import Gelu7
from irgraph.ops.activation.sigmoid import Sigmoid
from irgraph.ops.arithmetic.abs import Abs
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.arithmetic.ceiling import Ceiling
from irgraph.ops.arithmetic.cos import Cos
from irgraph.ops.arithmetic.divide import Divide
from irgraph.ops.arithmetic.erf import Erf
from irgraph.ops.arithmetic.floor import Floor
from irgraph.ops.arithmetic.log import Log
from irgraph.ops.arithmetic.maximum import Maximum
from irgraph.ops.arithmetic.minimum import Minimum
from irgraph.ops.arithmetic.multiply import Multiply
from irgraph.ops.arithmetic.negative import Negative
from irgraph.ops.arithmetic.power import Power
from irgraph.ops.arithmetic.sin import Sin
from irgraph.ops.arithmetic.sqrt import Sqrt
from irgraph.ops.arithmetic.subtract import Subtract
from irgraph.ops.arithmetic.tanh import Tanh
from irgraph.ops.comparison.equal import Equal
from irgraph.ops.comparison.greater import Greater
from irgraph.ops.comparison.greater_equal import GreaterEqual
from irgraph.ops.comparison.less import Less
from irgraph.ops.comparison.less_equal import LessEqual
from irgraph.ops.condition.select import Select
from irgraph.ops.families.reduction import Reduction
from irgraph.ops.generation.range import Range4
from irgraph.ops.logical.logical_and import LogicalAnd
from irgraph.ops.logical.logical_not import LogicalNot
from irgraph.ops.logical.logical_or import LogicalOr
from irgraph.ops.matrix.mat_mul import MatMul
from irgraph.ops.movement.broadcast import Broadcast3
from irgraph.ops.movement.gather import Gather8
from irgraph.ops.movement.slice import Slice
from irgraph.ops.movement.tile import Tile
from irgraph.ops.normalization.mvn import MVN6
from irgraph.ops.reduction.reduce_logical_and import ReduceLogicalAnd
from irgraph.ops.reduction.reduce_logical_or import ReduceLogicalOr
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.reduction.reduce_min import ReduceMin
from irgraph.ops.reduction.reduce_sum import ReduceSum
from irgraph.ops.shape.shape_of import ShapeOf3
from irgraph.ops.shape.squeeze import Squeeze
from irgraph.ops.shape.unsqueeze import Unsqueeze
from irgraph.ops.type.convert import Convert

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

UNARY: dict[str, type[Op]] = {
    "Abs": Abs, "Neg": Negative, "Exp": Exp, "Log": Log, "Sqrt": Sqrt, "Sigmoid": Sigmoid, "Tanh": Tanh,
    "Erf": Erf, "Floor": Floor, "Ceil": Ceiling, "Sin": Sin, "Cos": Cos, "Not": LogicalNot,
}
"""ONNX ops computing what one IR op of no attributes computes."""
BINARY: dict[str, type[Op]] = {
    "Sub": Subtract, "Div": Divide, "Pow": Power, "Equal": Equal, "Less": Less, "Greater": Greater,
    "And": LogicalAnd, "Or": LogicalOr, "MatMul": MatMul,
}
"""ONNX ops with numpy broadcasting (MatMul: numpy's matmul) and the IR op of the same values."""
REDUCTIONS: dict[str, type[Reduction]] = {"ReduceMean": ReduceMean, "ReduceSum": ReduceSum, "ReduceMax": ReduceMax,
                                   "ReduceMin": ReduceMin}
BOOLEAN_REDUCTIONS: dict[type[Reduction], type[Reduction]] = {ReduceMax: ReduceLogicalOr, ReduceMin: ReduceLogicalAnd}
"""ReduceMax/Min of booleans (opset 20 on): IR's numeric reductions take no booleans."""


@imports(*UNARY)
def unary(context: ImportContext) -> None:
    """One input, one IR op."""
    context.attributes({})
    one_output(context)
    context.emit(UNARY[context.node.op_type](), ports_of(context, node_inputs(context, 1, 1)))


@imports(*BINARY)
def binary(context: ImportContext) -> None:
    """Two inputs, numpy broadcasting (before opset 7 the broadcast/axis attributes: ``legacy_operands``), one IR
    op."""
    attributes = context.attributes(legacy_attributes(context) if context.node.op_type != "MatMul" else {})
    one_output(context)
    op_class = BINARY[context.node.op_type]
    # ONNX's integer Div truncates: Divide-1 with m_pythondiv=false (its default floors)
    op = Divide(m_pythondiv=False) if op_class is Divide else op_class()
    ports = legacy_operands(context, attributes, ports_of(context, node_inputs(context, 2, 2)))
    if op_class is Power:
        ports = _power_operands(context, ports)
    context.emit(op, ports)


def _power_operands(context: ImportContext, ports: list[OutputPort]) -> list[OutputPort]:
    """ONNX's Pow takes an exponent of another type than the base (opset 12 on); IR's Power one type: an integer
    exponent of a float base is converted to the base's type (exactly). A float exponent of an integer base is
    refused: onnxruntime raises in float and truncates the result, which no conversion of the exponent gives."""
    base, exponent = (context.type_of(port).element_type for port in ports)
    if base is exponent:
        return ports
    if not base.is_real:
        raise context.fail(f"a {base} base with a {exponent} exponent: IR's Power takes one type, and converting "
                           "either operand changes the result")
    converted = helper_layer(context, Convert(destination_type=base), [ports[1]], "exponent")
    context.explain(f"{context.label}: the {exponent} exponent -> Convert-1 to {base}, the base's type")
    return [ports[0], converted]


@imports("Max", "Min")
def max_min(context: ImportContext) -> None:
    """Max/Min of n inputs -> a chain of Maximum-1/Minimum-1."""
    context.attributes(legacy_attributes(context))
    one_output(context)
    ports = ports_of(context, node_inputs(context, 1, 2**31))
    kind = Maximum if context.node.op_type == "Max" else Minimum
    total = ports[0]
    for index, port in enumerate(ports[1:-1], start=1):
        total = helper_layer(context, kind(), [total, port], f"partial{index}")
    context.emit(kind(), [total, ports[-1]] if len(ports) > 1 else [total, total])


@imports("Where")
def where(context: ImportContext) -> None:
    """Where -> Select-1 (numpy broadcasting)."""
    context.attributes({})
    one_output(context)
    context.emit(Select(), ports_of(context, node_inputs(context, 3, 3)))


@imports("Cast")
def cast(context: ImportContext) -> None:
    """Cast -> Convert-1 to the IR type of ``to``. To float8 with saturate=1 (the default), a Clamp-1 to the type's
    largest finite value first: ONNX saturates out-of-range values and infinities there, IR's Convert does not."""
    attributes = context.attributes({"to": "INT", "saturate": "INT", "round_mode": "STRING"})
    one_output(context)
    target = element_type_from_onnx(context.onnx, attributes["to"], f"{context.label}: its 'to' type")
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    _convert(context, data, target, attributes)


@imports("CastLike", versions=(15, 19, 21, 23, 24, 25))
def cast_like(context: ImportContext) -> None:
    """CastLike -> Convert-1 to the type of ``target_type`` (known at conversion time), saturating as Cast."""
    attributes = context.attributes({"saturate": "INT", "round_mode": "STRING"})
    one_output(context)
    data, like = ports_of(context, node_inputs(context, 2, 2))
    _convert(context, data, context.type_of(like).element_type, attributes)


def _convert(context: ImportContext, data: OutputPort, target: ElementType,
             attributes: dict[str, Any]) -> None:
    """Convert-1 to ``target``, after a Clamp-1 where ONNX saturates; round_mode (float8e8m0 only) must be 'up',
    the rounding IR's Convert gives."""
    round_mode = text(attributes.get("round_mode", b"up"))
    if target is ElementType.F8E8M0 and round_mode != "up":
        raise context.fail(f"round_mode={round_mode!r}: IR's Convert to f8e8m0 rounds up only")
    largest = SATURATED.get(target)
    if largest is not None and attributes.get("saturate", 1) and context.type_of(data).element_type.is_real:
        data = helper_layer(context, Clamp(min=-largest, max=largest), [data], "saturated")
        context.explain(f"{context.label}: saturate=1 -> Clamp-1 to [-{largest}, {largest}] before Convert-1 "
                        f"to {target}")
    context.emit(Convert(destination_type=target), [data])


SATURATED = {ElementType.F8E4M3: 448.0, ElementType.F8E5M2: 57344.0, ElementType.F4E2M1: 6.0}
"""The float8 and float4 types ONNX's Cast saturates to (saturate=1), and their largest finite value."""


@imports("Shape")
def shape(context: ImportContext) -> None:
    """Shape -> ShapeOf-3 (i64); start/end (opset 15) slice it with a Slice-8."""
    attributes = context.attributes({"start": "INT", "end": "INT"})
    one_output(context)
    (data,) = ports_of(context, node_inputs(context, 1, 1))
    if "start" not in attributes and "end" not in attributes:
        context.emit(ShapeOf3(output_type=ElementType.I64), [data])
        return
    whole = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
    start, end = attributes.get("start", 0), attributes.get("end", 2**62)
    vectors = [context.const([value], ElementType.I64, what)
               for value, what in ((start, "start"), (end, "end"), (1, "step"))]
    context.emit(Slice(), [whole, *vectors])


@imports("Gather")
def gather(context: ImportContext) -> None:
    """Gather -> Gather-8 with the axis as a Const (negative indices count from the end in both)."""
    attributes = context.attributes({"axis": "INT"})
    one_output(context)
    data, indices = ports_of(context, node_inputs(context, 2, 2))
    axis = context.const(attributes.get("axis", 0), ElementType.I64, "axis")
    context.emit(Gather8(batch_dims=0), [data, indices, axis])


@imports("Slice")
def slice_(context: ImportContext) -> None:
    """Slice -> Slice-8, whose clamping is ONNX's (Slice-1's attributes become Consts)."""
    if context.version < 10:
        attributes = context.attributes({"starts": "INTS", "ends": "INTS", "axes": "INTS"})
        one_output(context)
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        if "starts" not in attributes or "ends" not in attributes:
            raise context.fail("the 'starts' and 'ends' attributes are required")
        starts, ends = list(attributes["starts"]), list(attributes["ends"])
        axes = list(attributes.get("axes", range(len(starts))))
        bounds = [context.const(values, ElementType.I64, what)
                  for values, what in ((starts, "starts"), (ends, "ends"), ([1] * len(starts), "steps"),
                                       (axes, "axes"))]
        context.emit(Slice(), [data, *bounds])
        context.explain(f"{context.label}: the starts, ends and axes attributes -> Slice-8 inputs (steps 1)")
        return
    context.attributes({})
    one_output(context)
    names = node_inputs(context, 3, 5)
    ports = ports_of(context, names[:3])
    rank_count = context.type_of(ports[1]).shape
    steps = ports_of(context, [names[4]])[0] if len(names) > 4 else None
    if steps is None:
        count = rank_count[0].value if not rank_count.rank_is_dynamic and rank_count[0].is_static else None
        if count is None:
            raise context.fail("starts has a dynamic length and no steps are given")
        steps = context.const([1] * count, ElementType.I64, "steps")
    axes = ports_of(context, [names[3]]) if len(names) > 3 else []
    context.emit(Slice(), [*ports, steps, *axes])


@imports("Squeeze")
def squeeze(context: ImportContext) -> None:
    """Squeeze -> Squeeze-1 (axes from the attribute before opset 13, the input after; none: every 1 dim)."""
    if context.version < 13:
        attributes = context.attributes({"axes": "INTS"})
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        axes = [context.const(list(attributes["axes"]), ElementType.I64, "axes")] if "axes" in attributes \
            else []
    else:
        context.attributes({})
        data, *axes = ports_of(context, node_inputs(context, 1, 2))
    one_output(context)
    context.emit(Squeeze(), [data, *axes])


@imports(*REDUCTIONS)
def reduce(context: ImportContext) -> None:
    """ReduceMean/Sum/Max/Min -> the IR reduction (axes from the attribute or, from opset 18 (13 for Sum), the
    input; no axes: every axis unless noop_with_empty_axes); float ReduceMax/Min give ONNX's infinity for sets of
    only that infinity or none."""
    attributes = context.attributes({"axes": "INTS", "keepdims": "INT", "noop_with_empty_axes": "INT"})
    one_output(context)
    names = node_inputs(context, 1, 2)
    (data,) = ports_of(context, names[:1])
    axes = reduction_axes(context, attributes, names, data)
    if axes is None:
        alias_output(context, names[0])
        return
    kind = REDUCTIONS[context.node.op_type]
    if context.type_of(data).element_type is ElementType.BOOLEAN and kind in BOOLEAN_REDUCTIONS:
        kind = BOOLEAN_REDUCTIONS[kind]
        context.explain(f"{context.label}: boolean data -> {kind.__name__}-1 (max is or, min is and)")
    keep = bool(attributes.get("keepdims", 1))
    element_type = context.type_of(data).element_type
    if kind not in (ReduceMax, ReduceMin) or not element_type.is_real:
        context.emit(kind(keep_dims=keep), [data, axes])
        return
    # IR's ReduceMax/Min start from the lowest/highest finite value (OpenVINO's reference), so a set of only -inf
    # (+inf), or an empty one, gives that value where ONNX gives the infinity: selected explicitly.
    infinity = -np.inf if kind is ReduceMax else np.inf
    reduced = helper_layer(context, kind(keep_dims=keep), [data, axes], "reduced")
    infinite = context.const(infinity, element_type, "infinity")
    only = helper_layer(context, ReduceLogicalAnd(keep_dims=keep), [
        helper_layer(context, Equal(), [data, infinite], "is_infinite"), axes], "only_infinite")
    context.emit(Select(), [only, infinite, reduced])
    context.explain(f"{context.label}: -> {kind.__name__}-1, and {infinity} where every element (or none) is "
                    f"{infinity} (IR's reduction starts from the largest finite value)")


def reduction_axes(context: ImportContext, attributes: dict[str, Any], names: list[str],
                   data: OutputPort) -> OutputPort | None:
    """The axes of an ONNX reduction: the input (opset 18 on; 13 for ReduceSum), the attribute, or every axis (no
    axes, or an empty constant axes input); None when ``noop_with_empty_axes`` makes it the identity."""
    if len(names) == 2:
        found = context.constant(names[1])
        port = context.tensor(names[1])
        shape = context.type_of(port).shape
        empty = np.size(found[1]) == 0 if found is not None else shape.is_static and 0 in shape.to_tuple()
        if not empty:
            return port
        if attributes.get("noop_with_empty_axes", 0):
            return None
        context.explain(f"{context.label}: empty axes -> every axis (noop_with_empty_axes=0)")
    elif "axes" in attributes:
        return context.const(list(attributes["axes"]), ElementType.I64, "axes")
    if attributes.get("noop_with_empty_axes", 0):
        return None
    return context.const(list(range(static_rank(data, context, "the input"))), ElementType.I64, "axes")


@imports("Expand")
def expand(context: ImportContext) -> None:
    """Expand -> Broadcast-3 in bidirectional mode (ONNX broadcasts the shape and the input both ways)."""
    context.attributes({})
    one_output(context)
    context.emit(Broadcast3(mode="bidirectional"), ports_of(context, node_inputs(context, 2, 2)))


@imports("Range")
def range_(context: ImportContext) -> None:
    """Range -> Range-4 of the inputs' type."""
    context.attributes({})
    one_output(context)
    ports = ports_of(context, node_inputs(context, 3, 3))
    context.emit(Range4(output_type=context.type_of(ports[0]).element_type), ports)


@imports("Tile")
def tile(context: ImportContext) -> None:
    """Tile -> Tile-1."""
    context.attributes({})
    one_output(context)
    context.emit(Tile(), ports_of(context, node_inputs(context, 2, 2)))


@imports("LayerNormalization")
def layer_normalization(context: ImportContext) -> None:
    """LayerNormalization (opset 17) -> MVN-6 over the axes from ``axis`` on (eps inside the root), then
    Multiply-1 by the scale and Add-1 of the bias, as OpenVINO's converter builds it. The Mean and InvStdDev
    outputs, when used, are ReduceMean-1 of X and 1 / Sqrt-1(ReduceMean-1((X - Mean)^2) + eps), kept dims, in f32
    (stash_type 1) or the input's type (stash_type 0)."""
    attributes = context.attributes({"axis": "INT", "epsilon": "FLOAT", "stash_type": "INT"})
    outputs = list(context.node.output)
    if not outputs or not outputs[0] or len(outputs) > 3:
        raise context.fail(f"has the outputs Y, Mean and InvStdDev (Y named); got {outputs}")
    names = node_inputs(context, 2, 3)
    data, scale, *bias = ports_of(context, names)
    rank = static_rank(data, context, "the input")
    axis = attributes.get("axis", -1)
    axis = axis + rank if axis < 0 else axis
    axes = context.const(list(range(axis, rank)), ElementType.I64, "axes")
    epsilon = attributes.get("epsilon", 1e-5)
    normalized = helper_layer(context, MVN6(normalize_variance=True, eps=epsilon, eps_mode="INSIDE_SQRT"),
                              [data, axes], "mvn")
    scaled = helper_layer(context, Multiply(), [normalized, scale], "scaled")
    y = helper_layer(context, Add(), [scaled, bias[0]], "y") if bias else scaled
    context.bind(y, outputs[0])
    context.explain(f"{context.label}: -> MVN-6 over axes {list(range(axis, rank))} (eps inside the root), "
                    f"Multiply-1 by the scale{', Add-1 of the bias' if bias else ''}")
    if not any(outputs[1:]):
        return
    element_type = context.type_of(data).element_type
    stash = ElementType.F32 if attributes.get("stash_type", 1) == 1 else element_type
    x = data if stash is element_type else helper_layer(context, Convert(destination_type=stash), [data], "x")
    mean = helper_layer(context, ReduceMean(keep_dims=True), [x, axes], "mean")
    centered = helper_layer(context, Subtract(), [x, mean], "centered")
    variance = helper_layer(context, ReduceMean(keep_dims=True),
                            [helper_layer(context, Multiply(), [centered, centered], "squared"), axes], "variance")
    root = helper_layer(context, Sqrt(), [helper_layer(context, Add(), [
        variance, context.const(epsilon, stash, "epsilon")], "shifted")], "deviation")
    inverse = helper_layer(context, Divide(m_pythondiv=False), [context.const(1, stash, "one"), root],
                           "inverse")
    for port, name in ((mean, outputs[1]), (inverse, outputs[2] if len(outputs) > 2 else "")):
        if name:
            context.bind(port, name)
    context.explain(f"{context.label}: Mean and InvStdDev -> ReduceMean-1, Subtract-1, Multiply-1, ReduceMean-1, "
                    f"Add-1, Sqrt-1, Divide-1 in {stash}")


@imports("Gelu")
def gelu(context: ImportContext) -> None:
    """Gelu (opset 20) -> Gelu-7 with the same approximation (none is erf)."""
    attributes = context.attributes({"approximate": "STRING"})
    one_output(context)
    mode = text(attributes.get("approximate", b"none"))
    if mode not in ("none", "tanh"):
        raise context.fail(f"approximate must be none or tanh; got {mode!r}")
    context.emit(Gelu7(approximation_mode="erf" if mode == "none" else "tanh"),
                 ports_of(context, node_inputs(context, 1, 1)))


@imports("Trilu")
def trilu(context: ImportContext) -> None:
    """Trilu (IR has no op for it) -> a pattern: the column minus the row index of every element (two Range-4
    of the last two dims from a ShapeOf-3), compared with k (GreaterEqual-1 for upper, LessEqual-1 for lower),
    and Select-1 between the input and 0."""
    attributes = context.attributes({"upper": "INT"})
    one_output(context)
    names = node_inputs(context, 1, 2)
    data = context.tensor(names[0])
    if static_rank(data, context, "the input") < 2:
        raise context.fail("needs an input of rank 2 or more")
    offset = context.tensor(names[1]) if len(names) == 2 else context.const(0, ElementType.I64,
                                                                                     "k")
    shape = helper_layer(context, ShapeOf3(output_type=ElementType.I64), [data], "shape")
    zero, one = (context.const(v, ElementType.I64, what) for v, what in ((0, "zero"), (1, "one")))

    def indices(axis: int, what: str) -> OutputPort:
        size = helper_layer(context, Gather8(batch_dims=0), [shape, context.const(axis, ElementType.I64,
                                                                                  f"{what}_axis"), zero], f"{what}s")
        return helper_layer(context, Range4(output_type=ElementType.I64), [zero, size, one], what)

    rows = helper_layer(context, Unsqueeze(), [indices(-2, "row"), context.const([1], ElementType.I64,
                                                                               "row_axes")], "row_column")
    diagonal = helper_layer(context, Subtract(), [indices(-1, "column"), rows], "diagonal")
    keep_op = GreaterEqual() if attributes.get("upper", 1) else LessEqual()
    keep = helper_layer(context, keep_op, [diagonal, offset], "keep")
    filler = context.const(0, context.type_of(data).element_type, "filler")
    context.emit(Select(), [keep, data, filler])
    relation = ">=" if attributes.get("upper", 1) else "<="
    context.explain(f"{context.label}: -> Select-1 of the input where column - row {relation} k (from ShapeOf-3 and "
                    "Range-4), else 0: IR has no Trilu")
