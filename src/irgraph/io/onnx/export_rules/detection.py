"""Detection layers: ReorgYolo as a Reshape/Transpose/Reshape (data movement, exact); PriorBox, PriorBox-8 and
PriorBoxClustered folded into an initializer when their sizes are constants (ONNX has no prior-box op, and the
boxes depend on nothing else), refused otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.detection.prior_box import PriorBox, PriorBox8
from irgraph.ops.detection.prior_box_clustered import PriorBoxClustered
from irgraph.ops.detection.reorg_yolo import ReorgYolo


@exports(ReorgYolo)
def reorg_yolo(node: Node, op: ReorgYolo, ctx: ExportContext) -> list:
    """The reference's view [N, C/s^2, H, s, W, s], transposed to (0, 3, 5, 1, 2, 4), read as [N, C*s^2, H/s, W/s]."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or shape.rank != 4 or not all(d.is_static for d in list(shape)[1:]):
        raise ctx.refuse(f"its data has the shape {shape}; the pattern needs static C, H and W")
    _, channels, height, width = (d.value for d in shape)
    step = op.stride[0]
    if channels % (step * step) or height % step or width % step:
        raise ctx.refuse(f"the shape {shape} does not divide by the stride {step}")
    view, moved = ctx.temp(node, "view"), ctx.temp(node, "moved")
    view_shape = np.asarray([0, channels // (step * step), height, step, width, step], np.int64)
    out_shape = np.asarray([0, channels * step * step, height // step, width // step], np.int64)
    return [ctx.make(node, "Reshape", [ctx.inputs(node)[0], ctx.initializer(node, "view_shape", view_shape)], [view],
                     step="view"),
            ctx.make(node, "Transpose", [view], [moved], step="moved", perm=[0, 3, 5, 1, 2, 4]),
            ctx.make(node, "Reshape", [moved, ctx.initializer(node, "shape", out_shape)], ctx.outputs(node))]


@exports(PriorBox, PriorBox8, PriorBoxClustered)
def prior_box(node: Node, op: Any, ctx: ExportContext) -> list:
    """The boxes irgraph computes, as an initializer (both sizes must be constants)."""
    values = [ctx.constant(node, index) for index in (0, 1)]
    if any(value is None for value in values):
        raise ctx.refuse(f"{op.type_name} is folded into its boxes at export, which needs both sizes (inputs 0 and "
                         "1) straight from Consts; ONNX has no prior-box op")
    try:
        (boxes,) = op.evaluate(values)
    except OpError as err:
        raise ctx.refuse(err.message) from None
    ctx.explain(f"layer {node.id} {node.name!r} {op.title()}: folded into an initializer of shape {list(boxes.shape)}")
    ctx.define(ctx.outputs(node)[0], boxes)
    return []
