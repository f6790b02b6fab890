"""Generators and index ops: Range, NonZero, OneHot, Eye, Bucketize."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import cast, constant_ints, int64_input, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.condition.bucketize import Bucketize
from irgraph.ops.condition.non_zero import NonZero
from irgraph.ops.generation.eye import Eye
from irgraph.ops.generation.range import Range, Range4
from irgraph.ops.sequence.one_hot import OneHot1, OneHot16


def _scalar_input(ctx: ExportContext, node: Node, index: int, target: ElementType, made: list) -> str:
    """Input ``index`` as a 0-d tensor of ``target`` (a 1-element 1-D input is squeezed, another type cast)."""
    value = ctx.constant(node, index)
    if value is not None:  # the Cast a C++ static_cast makes: truncation for float -> integer
        array = np.asarray(value).reshape(())
        if target.is_integral:
            array = np.trunc(array.astype(np.float64)) if array.dtype.kind == "f" else array
        return ctx.initializer(node, f"scalar{index}", array.astype(target.numpy_dtype))
    name = ctx.inputs(node)[index]
    tensor_type = ctx.input_type(node, index)
    if tensor_type.shape.rank_is_dynamic or tensor_type.shape.rank != 0:
        squeezed = ctx.temp(node, f"scalar{index}")
        made.append(ctx.make(node, "Reshape", [name, ctx.initializer(node, f"scalar{index}_shape",
                                                                     np.zeros(0, np.int64))],
                             [squeezed], step=f"scalar{index}"))
        name = squeezed
    if tensor_type.element_type is not target:
        name = cast(ctx, node, name, target, f"scalar{index}_cast", made)
    return name


@exports(Range, Range4)
def range_(node: Node, op: Any, ctx: ExportContext) -> list:
    """Range for integers; floats as start + i * step over an int64 index Range (onnxruntime's float
    Range adds step cumulatively, OpenVINO multiplies), the length taken from ONNX's own float Range."""
    output_type = ctx.output_type(node, 0).element_type
    made: list = []
    start, stop, step = (_scalar_input(ctx, node, i, output_type, made) for i in range(3))
    output = ctx.outputs(node)[0]
    if output_type.is_integral:
        made.append(ctx.make(node, "Range", [start, stop, step], [output]))
        return made
    if output_type not in (ElementType.F32, ElementType.F64):
        raise ctx.refuse(f"a {output_type} Range is computed in f32 and rounded once; ONNX Range takes f32 and f64")
    names = {s: ctx.temp(node, s) for s in ("float_range", "length", "count", "index", "real_index", "offsets")}
    zero, one = (ctx.initializer(node, s, np.asarray(v, np.int64)) for s, v in (("zero", 0), ("one", 1)))
    made += [
        ctx.make(node, "Range", [start, stop, step], [names["float_range"]], step="float_range"),
        ctx.make(node, "Shape", [names["float_range"]], [names["length"]], step="length"),
        ctx.make(node, "Squeeze", [names["length"]], [names["count"]], step="count"),
        ctx.make(node, "Range", [zero, names["count"], one], [names["index"]], step="index"),
        ctx.make(node, "Cast", [names["index"]], [names["real_index"]], step="real_index",
                 to=onnx_type_code(output_type)),
        ctx.make(node, "Mul", [names["real_index"], step], [names["offsets"]], step="offsets"),
        ctx.make(node, "Add", [start, names["offsets"]], [output]),
    ]
    return made


@exports(NonZero)
def non_zero(node: Node, op: NonZero, ctx: ExportContext) -> list:
    """NonZero (int64, row-major), cast to i32 when asked."""
    if op.output_type is ElementType.I64:
        return [ctx.make(node, "NonZero", ctx.inputs(node), ctx.outputs(node))]
    indices = ctx.temp(node, "indices")
    return [ctx.make(node, "NonZero", ctx.inputs(node), [indices], step="indices"),
            ctx.make(node, "Cast", [indices], ctx.outputs(node), to=onnx_type_code(op.output_type))]


@exports(OneHot1, OneHot16)
def one_hot(node: Node, op: Any, ctx: ExportContext) -> list:
    """OneHot with values [off, on]; OpenVINO's ignore_negative (all off for a negative index) maps a
    negative index to depth, which ONNX also turns into all off (ONNX's own rule wraps -1 to depth - 1,
    as OpenVINO's normalize does)."""
    indices, depth, on_value, off_value = ctx.inputs(node)
    made: list = []
    index_type = ctx.input_type(node, 0).element_type
    ignore_negative = getattr(op, "negative_indices_mode", "ignore_negative") == "ignore_negative"
    if ignore_negative and index_type.dtype.kind == "i":
        depth_as_index = _scalar_input(ctx, node, 1, index_type, made)
        zero = ctx.initializer(node, "zero", np.asarray(0, index_type.numpy_dtype))
        negative, ignored = ctx.temp(node, "negative"), ctx.temp(node, "ignored")
        made += [ctx.make(node, "Less", [indices, zero], [negative], step="negative"),
                 ctx.make(node, "Where", [negative, depth_as_index, indices], [ignored], step="ignored")]
        indices = ignored
    shape = ctx.initializer(node, "value_shape", np.asarray([1], np.int64))
    off, on, values = ctx.temp(node, "off"), ctx.temp(node, "on"), ctx.temp(node, "values")
    made += [ctx.make(node, "Reshape", [off_value, shape], [off], step="off"),
             ctx.make(node, "Reshape", [on_value, shape], [on], step="on"),
             ctx.make(node, "Concat", [off, on], [values], step="values", axis=0),
             ctx.make(node, "OneHot", [indices, depth, values], ctx.outputs(node), axis=op.axis)]
    return made


@exports(Eye)
def eye(node: Node, op: Eye, ctx: ExportContext) -> list:
    """EyeLike (its diagonal an attribute: diagonal_index must be constant) of a zero tensor shaped
    (rows, columns), expanded over batch_shape when given."""
    names = ctx.inputs(node)
    diagonal = constant_ints(ctx, node, 2, "diagonal_index")[0]
    made: list = []
    rows, columns = (_scalar_input(ctx, node, i, ElementType.I64, made) for i in (0, 1))
    axes = ctx.initializer(node, "axes", np.asarray([0], np.int64))
    row_vec, column_vec, shape, zeros = (ctx.temp(node, s) for s in ("rows", "columns", "shape", "zeros"))
    made += [ctx.make(node, "Unsqueeze", [rows, axes], [row_vec], step="rows"),
             ctx.make(node, "Unsqueeze", [columns, axes], [column_vec], step="columns"),
             ctx.make(node, "Concat", [row_vec, column_vec], [shape], step="shape", axis=0),
             ctx.make(node, "ConstantOfShape", [shape], [zeros], step="zeros")]
    output = ctx.outputs(node)[0]
    batched = len(names) > 3 and names[3]
    matrix = ctx.temp(node, "matrix") if batched else output
    made.append(ctx.make(node, "EyeLike", [zeros], [matrix], **({} if matrix == output else {"step": "matrix"}),
                         k=diagonal, dtype=onnx_type_code(op.output_type)))
    if batched:
        batch = int64_input(ctx, node, 3, "batch_shape", made, scalar=False)
        full = ctx.temp(node, "full_shape")
        made += [ctx.make(node, "Concat", [batch, shape], [full], step="full_shape", axis=0),
                 ctx.make(node, "Expand", [matrix, full], [output])]
    return made


@exports(Bucketize)
def bucketize(node: Node, op: Bucketize, ctx: ExportContext) -> list:
    """The count of boundaries below each value (right bound: b < x; left bound: b <= x), from a
    broadcast comparison against the 1-D buckets summed over the last axis."""
    data, buckets = ctx.inputs(node)
    made: list = []
    axes = ctx.initializer(node, "last_axis", np.asarray([-1], np.int64))
    column, below, counted, total = (ctx.temp(node, s) for s in ("column", "below", "counted", "total"))
    made += [ctx.make(node, "Unsqueeze", [data, axes], [column], step="column"),
             ctx.make(node, "Less" if op.with_right_bound else "LessOrEqual", [buckets, column], [below],
                      step="below"),
             ctx.make(node, "Cast", [below], [counted], step="counted", to=onnx_type_code(ElementType.I64)),
             ctx.make(node, "ReduceSum", [counted, axes], [total], step="total", keepdims=0)]
    output = ctx.outputs(node)[0]
    if op.output_type is ElementType.I64:
        made.append(ctx.make(node, "Identity", [total], [output]))
    else:
        made.append(ctx.make(node, "Cast", [total], [output], to=onnx_type_code(op.output_type)))
    return made
