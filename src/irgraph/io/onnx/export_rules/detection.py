"""Detection layers: ReorgYolo as a Reshape/Transpose/Reshape (data movement, exact); RegionYolo as Sigmoids and a
Softmax on slices of its [N, regions, entries, H*W] view; PriorBox, PriorBox-8 and
PriorBoxClustered folded into an initializer when Consts and static shapes compute their sizes (as in SSD IRs:
ShapeOf of a feature map and of the image, sliced; ONNX has no prior-box op, and the boxes depend on nothing
else), refused otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.detection.prior_box import PriorBox, PriorBox8
from irgraph.ops.detection.prior_box_clustered import PriorBoxClustered
from irgraph.ops.detection.region_yolo import RegionYolo
from irgraph.ops.detection.reorg_yolo import ReorgYolo
from irgraph.ops.op import normalize_axis


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
    values = [ctx.static_value(node, index) for index in (0, 1)]
    if any(value is None for value in values):
        raise ctx.refuse(f"{op.type_name} is folded into its boxes at export, which needs both sizes (inputs 0 and "
                         "1) computed from Consts and static shapes alone; ONNX has no prior-box op")
    try:
        (boxes,) = op.evaluate(values)
    except OpError as err:
        raise ctx.refuse(err.message) from None
    ctx.explain(f"layer {node.id} {node.name!r} {op.title()}: folded into an initializer of shape {list(boxes.shape)}")
    ctx.define(ctx.outputs(node)[0], boxes)
    return []


@exports(RegionYolo)
def region_yolo(node: Node, op: RegionYolo, ctx: ExportContext) -> list:
    """The data as [N, regions, entries, H*W]: Sigmoid on x, y and the objectness, Softmax over the classes (v2)
    or Sigmoid on them (v3), concatenated back and reshaped to the output's shape."""
    shape = ctx.input_type(node, 0).shape
    out = ctx.output_type(node, 0).shape
    if shape.rank_is_dynamic or shape.rank != 4 or not all(d.is_static for d in list(shape)[1:]):
        raise ctx.refuse(f"its data has the shape {shape}; the pattern needs static C, H and W")
    if op.coords < 2:
        raise ctx.refuse(f"coords {op.coords} < 2: OpenVINO's sigmoid of x and y overlaps the objectness")
    _, channels, height, width = (d.value for d in shape)
    entries = op.coords + op.classes + 1
    if channels != op.regions * entries:
        raise ctx.refuse(f"the data has {channels} channels; {op.regions} regions of {entries} entries need "
                         f"{op.regions * entries}")
    if out.rank_is_dynamic or not all(d.is_static for d in list(out)[1:]) or (not out[0].is_static and op.do_softmax
                                                                               and normalize_axis(op.axis, 4) == 0):
        raise ctx.refuse(f"its output shape {out} is not static past the batch")
    pattern = Pattern(ctx, node)
    made, step, int64 = pattern.made, pattern.step, pattern.int64

    blocks = step("Reshape", [ctx.inputs(node)[0], int64("blocks_shape", [0, op.regions, entries, height * width])],
                  "blocks")

    def part(start: int, end: int, name: str) -> str:
        return step("Slice", [blocks, int64(f"{name}_start", [start]), int64(f"{name}_end", [end]),
                              int64(f"{name}_axis", [2])], name)

    parts = [step("Sigmoid", [part(0, 2, "xy")], "xy_sigmoid")]
    if op.coords > 2:
        parts.append(part(2, op.coords, "box"))
    if op.do_softmax:
        parts.append(step("Sigmoid", [part(op.coords, op.coords + 1, "objectness")], "objectness_sigmoid"))
        if op.classes:
            parts.append(step("Softmax", [part(op.coords + 1, entries, "classes")], "classes_softmax", axis=2))
    else:
        parts.append(step("Sigmoid", [part(op.coords, entries, "scores")], "scores_sigmoid"))
    joined = step("Concat", parts, "joined", axis=2)
    target = [0 if index == 0 and not dim.is_static else dim.value for index, dim in enumerate(out)]
    made.append(ctx.make(node, "Reshape", [joined, int64("shape", target)], ctx.outputs(node)))
    return made
