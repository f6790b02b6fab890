"""Reductions and axis-wise ops: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/LogicalOr, SoftMax, LogSoftmax,
CumSum, TopK.

ReduceSum takes its axes as an input from opset 13, the other ReduceX from opset 18 (an attribute
before). OpenVINO's empty axes reduce nothing: that is an Identity (Abs for L1 and L2, whose one-term
reduction is |x|).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import cast, int64_input, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.activation.log_softmax import LogSoftmax
from irgraph.ops.activation.soft_max import SoftMax1, SoftMax8
from irgraph.ops.arithmetic.cum_sum import CumSum
from irgraph.ops.reduction.reduce_l1 import ReduceL1
from irgraph.ops.reduction.reduce_l2 import ReduceL2
from irgraph.ops.reduction.reduce_logical_and import ReduceLogicalAnd
from irgraph.ops.reduction.reduce_logical_or import ReduceLogicalOr
from irgraph.ops.reduction.reduce_max import ReduceMax
from irgraph.ops.reduction.reduce_mean import ReduceMean
from irgraph.ops.reduction.reduce_min import ReduceMin
from irgraph.ops.reduction.reduce_prod import ReduceProd
from irgraph.ops.reduction.reduce_sum import ReduceSum
from irgraph.ops.sort.top_k import TopK1, TopK3, TopK11

_REDUCE = {
    ReduceSum: "ReduceSum", ReduceMean: "ReduceMean", ReduceMax: "ReduceMax", ReduceMin: "ReduceMin",
    ReduceProd: "ReduceProd", ReduceL1: "ReduceL1", ReduceL2: "ReduceL2",
    ReduceLogicalAnd: "ReduceMin", ReduceLogicalOr: "ReduceMax",
}
"""The ONNX reduction of each IR one (the logical ones reduce booleans cast to uint8)."""


def _reduce_node(ctx: ExportContext, node: Node, onnx_op: str, data: str, output: str, step: str | None,
                 keep_dims: bool) -> list:
    """One ONNX ReduceX of ``data`` over the layer's axes: input form (opset 18, ReduceSum 13) or attribute."""
    value = ctx.constant(node, 1)
    attributes: dict[str, Any] = {"keepdims": int(keep_dims)}
    input_form = ctx.opset >= 18 or (onnx_op == "ReduceSum" and ctx.opset >= 13)
    extra = {} if step is None else {"step": step}
    if input_form:
        made: list = []
        axes = int64_input(ctx, node, 1, "axes", made, scalar=False)
        return [*made, ctx.make(node, onnx_op, [data, axes], [output], **extra, **attributes)]
    if value is None:
        raise ctx.refuse(f"computed axes need ONNX {onnx_op}'s axes input (opset 18); opset {ctx.opset} takes "
                         "them as an attribute")
    axes_list = [int(v) for v in np.asarray(value).reshape(-1)]
    return [ctx.make(node, onnx_op, [data], [output], axes=axes_list, **extra, **attributes)]


@exports(*_REDUCE)
def reduce(node: Node, op: Any, ctx: ExportContext) -> list:
    """ReduceX with the same axes and keep_dims; ReduceLogicalAnd/Or are ReduceMin/Max of uint8 then a
    Cast back to boolean."""
    onnx_op = _REDUCE[type(op)]
    data = ctx.inputs(node)[0]
    output = ctx.outputs(node)[0]
    value = ctx.constant(node, 1)
    if value is not None and np.size(value) == 0:
        ctx.explain(f"layer {node.id} {node.name!r}: empty axes reduce nothing")
        unary = "Abs" if onnx_op in ("ReduceL1", "ReduceL2") else "Identity"
        return [ctx.make(node, unary, [data], [output])]
    if not isinstance(op, (ReduceLogicalAnd, ReduceLogicalOr)):
        return _reduce_node(ctx, node, onnx_op, data, output, None, op.keep_dims)
    made: list = []
    as_bytes = cast(ctx, node, data, ElementType.U8, "as_u8", made)
    reduced = ctx.temp(node, "reduced")
    made += _reduce_node(ctx, node, onnx_op, as_bytes, reduced, "reduce", op.keep_dims)
    made.append(ctx.make(node, "Cast", [reduced], [output], to=onnx_type_code(ElementType.BOOLEAN)))
    return made


@exports(SoftMax1, SoftMax8)
def softmax(node: Node, op: Any, ctx: ExportContext) -> list:
    """Softmax over one axis (ONNX's opset 13 meaning)."""
    return [ctx.make(node, "Softmax", ctx.inputs(node), ctx.outputs(node), axis=op.axis)]


@exports(LogSoftmax)
def log_softmax(node: Node, op: LogSoftmax, ctx: ExportContext) -> list:
    """LogSoftmax over one axis."""
    return [ctx.make(node, "LogSoftmax", ctx.inputs(node), ctx.outputs(node), axis=op.axis)]


@exports(CumSum)
def cum_sum(node: Node, op: CumSum, ctx: ExportContext) -> list:
    """CumSum with exclusive and reverse; the axis is 0 when absent (ONNX needs the input)."""
    names = ctx.inputs(node)
    made: list = []
    if len(names) > 1 and names[1]:
        axis = int64_input(ctx, node, 1, "axis", made, scalar=True)
    else:
        axis = ctx.initializer(node, "axis", np.asarray(0, np.int64))
    return [*made, ctx.make(node, "CumSum", [names[0], axis], ctx.outputs(node), exclusive=int(op.exclusive),
                     reverse=int(op.reverse))]


@exports(TopK1, TopK3, TopK11)
def top_k(node: Node, op: Any, ctx: ExportContext) -> list:
    """TopK (sorted by value, ties to the lower index as in both); sort=index or none (irgraph orders
    those by index) sorts the k indices with a second TopK and gathers the values in that order;
    indices cast to i32 when asked."""
    names = ctx.inputs(node)
    made: list = []
    value = ctx.constant(node, 1)
    k_name = ctx.initializer(node, "k", np.asarray(value, np.int64).reshape(1)) if value is not None else \
        int64_input(ctx, node, 1, "k", made, scalar=False)
    outputs = ctx.outputs(node)
    by_index = op.sort != "value"
    values = ctx.temp(node, "by_value") if by_index else outputs[0]
    wanted = outputs[1] if len(outputs) > 1 else ctx.temp(node, "indices")
    wide = ctx.temp(node, "indices_i64") if by_index or op.index_element_type is not ElementType.I64 else wanted
    made.append(ctx.make(node, "TopK", [names[0], k_name], [values, wide], axis=op.axis,
                         largest=int(op.mode == "max"), sorted=1))
    if by_index:
        ordered, positions = ctx.temp(node, "ordered_indices"), ctx.temp(node, "positions")
        made += [ctx.make(node, "TopK", [wide, k_name], [ordered, positions], step="by_index", axis=op.axis,
                          largest=0, sorted=1),
                 ctx.make(node, "GatherElements", [values, positions], [outputs[0]], step="values", axis=op.axis)]
        wide = ordered
    if wide != wanted:
        made.append(ctx.make(node, "Cast", [wide], [wanted], step="indices", to=onnx_type_code(op.index_element_type)))
    return made
