"""Detection layers: ReorgYolo as a Reshape/Transpose/Reshape (data movement, exact); RegionYolo as Sigmoids and a
Softmax on slices of its [N, regions, entries, H*W] view; PriorBox, PriorBox-8 and
PriorBoxClustered folded into an initializer when Consts and static shapes compute their sizes (as in SSD IRs:
ShapeOf of a feature map and of the image, sliced; ONNX has no prior-box op, and the boxes depend on nothing
else), refused otherwise. ROIAlign-3/-9 (avg) as RoiAlign and ROIPooling (max) as MaxRoiPool."""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.detection.prior_box import PriorBox, PriorBox8
from irgraph.ops.detection.prior_box_clustered import PriorBoxClustered
from irgraph.ops.detection.region_yolo import RegionYolo
from irgraph.ops.detection.reorg_yolo import ReorgYolo
from irgraph.ops.detection.roi_align import ROIAlign3, ROIAlign9
from irgraph.ops.detection.roi_pooling import ROIPooling
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


ROI_ALIGN_TRANSFORMS = {"asymmetric": "output_half_pixel", "half_pixel_for_nn": "half_pixel",
                        "half_pixel": "half_pixel"}
"""ROIAlign's aligned_mode -> ONNX RoiAlign's coordinate_transformation_mode; IR's half_pixel also adds 0.5 to the
boxes before scaling, which the export does with an Add."""


@exports(ROIAlign3, ROIAlign9)
def roi_align(node: Node, op: Any, ctx: ExportContext) -> list:
    """ONNX RoiAlign (avg): asymmetric boxes as output_half_pixel (RoiAlign-10's only mode), half_pixel_for_nn as
    half_pixel (opset 16 on), half_pixel as half_pixel after adding 0.5 to the boxes; batch indices cast to i64.
    Refused: max, where ONNX pools the largest of each sample's four weighted taps."""
    if op.mode != "avg":
        raise ctx.refuse("mode max: ONNX's RoiAlign max pools the largest weighted tap of each sample, IR's the "
                         "largest interpolated sample (from 0)")
    aligned = getattr(op, "aligned_mode", "asymmetric")
    if ctx.opset < 10 or (aligned != "asymmetric" and ctx.opset < 16):
        raise ctx.refuse(f"aligned_mode {aligned} needs ONNX RoiAlign{'-16' if aligned != 'asymmetric' else ''} "
                         f"(coordinate_transformation_mode); exporting opset {ctx.opset}")
    data, rois, indices = ctx.inputs(node)[:3]
    made = []
    if aligned == "half_pixel":
        shifted = ctx.temp(node, "shifted")
        half = np.asarray(0.5, ctx.input_type(node, 1).element_type.numpy_dtype)
        made.append(ctx.make(node, "Add", [rois, ctx.initializer(node, "half", half)], [shifted], step="shifted"))
        rois = shifted
    if ctx.input_type(node, 2).element_type is not ElementType.I64:
        wide = ctx.temp(node, "indices")
        made.append(ctx.make(node, "Cast", [indices], [wide], step="indices", to=onnx_type_code(ElementType.I64)))
        indices = wide
    attributes: dict[str, Any] = {"mode": "avg", "output_height": op.pooled_h, "output_width": op.pooled_w,
                                  "sampling_ratio": op.sampling_ratio, "spatial_scale": float(op.spatial_scale)}
    if ctx.opset >= 16:
        attributes["coordinate_transformation_mode"] = ROI_ALIGN_TRANSFORMS[aligned]
    made.append(ctx.make(node, "RoiAlign", [data, rois, indices], ctx.outputs(node), **attributes))
    return made


@exports(ROIPooling)
def roi_pooling(node: Node, op: ROIPooling, ctx: ExportContext) -> list:
    """ONNX MaxRoiPool (max; onnxruntime 1.31.1 gives irgraph's values bit for bit on ordinary values). Refused:
    bilinear, which ONNX has no op for."""
    if op.method != "max":
        raise ctx.refuse("method bilinear has no ONNX form (MaxRoiPool pools the maximum)")
    return [ctx.make(node, "MaxRoiPool", ctx.inputs(node)[:2], ctx.outputs(node),
                     pooled_shape=[op.pooled_h, op.pooled_w], spatial_scale=float(op.spatial_scale))]
