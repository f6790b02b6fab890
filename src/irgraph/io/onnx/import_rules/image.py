"""ONNX -> IR rules for resampling: Resize and Upsample (where Interpolate-11 computes ONNX's output lengths),
GridSample and RoiAlign.

Where ONNX computes the output lengths from scales, irgraph computes them at conversion time by ONNX's formula
and gives IR the result explicitly, so the IR op's own rule for it (which can differ) never applies.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import OutputPort
from irgraph.io.onnx.import_rules.helpers import node_inputs, one_output, ports_of, static_rank, text
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops import Op
from irgraph.ops.detection.roi_align import ROIAlign9
from irgraph.ops.image.grid_sample import GridSample
from irgraph.ops.image.interpolate import Interpolate11

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext


# ------------------------------------------------------------------------------------ Resize
def _by_scales(context: ImportContext, data: OutputPort, scales: np.ndarray, axes: list[int],
               common: dict[str, Any]) -> tuple[Op, list[OutputPort]]:
    """Interpolate-11 by ``scales``, refused where its output lengths (``int(f32(length) * (scale + 1e-6))``)
    are not ONNX's ``floor(length * scale)`` on a static dim."""
    if scales.size == 0:
        raise context.fail("has empty scales and no sizes")
    if scales.size != len(axes):
        raise context.fail(f"has {scales.size} scales for {len(axes)} axes")
    shape = context.type_of(data).shape
    for axis, scale in zip(axes, scales.tolist(), strict=True):
        dim = shape[axis]
        if not dim.is_static:
            continue
        onnx_length = math.floor(dim.value * scale)
        ir_length = dim.value if scale == 1.0 else int(np.float32(dim.value) * (np.float32(scale) + np.float32(1e-6)))
        if onnx_length != ir_length:
            raise context.fail(f"scale {scale} on axis {axis} of length {dim.value}: ONNX gives {onnx_length}, "
                               f"Interpolate-11 {ir_length}; give sizes instead")
    return (Interpolate11(shape_calculation_mode="scales", **common),
            [data, context.const(scales, ElementType.F32, "scales")])


@imports("Upsample", versions=(7, 9))
def upsample(context: ImportContext) -> None:
    """Upsample (deprecated) -> Interpolate-11 by scales as Resize-10 (asymmetric, nearest_mode simple; linear is
    linear_onnx); the scales come from the attribute (opset 7) or a constant input (opset 9)."""
    if context.version == 7:
        attributes = context.attributes({"mode": "STRING", "scales": "FLOATS"})
        (data,) = ports_of(context, node_inputs(context, 1, 1))
        if "scales" not in attributes:
            raise context.fail("the 'scales' attribute is required")
        scales = np.asarray(attributes["scales"], np.float32)
    else:
        attributes = context.attributes({"mode": "STRING"})
        names = node_inputs(context, 2, 2)
        data = context.tensor(names[0])
        found = context.constant(names[1])
        if found is None:
            raise context.fail("its scales are computed; irgraph needs them constant to check IR's output lengths "
                               "against ONNX's floor(length * scale)")
        scales = np.asarray(found[1], np.float32).reshape(-1)
    one_output(context)
    mode = text(attributes.get("mode", "nearest"))
    if mode not in ("nearest", "linear", "bilinear"):
        raise context.fail(f"mode must be nearest or linear; got {mode!r}")
    common: dict[str, Any]  # mixed values, spread into the op
    common = {"mode": "nearest" if mode == "nearest" else "linear_onnx", "coordinate_transformation_mode": "asymmetric",
              "nearest_mode": "simple", "cube_coeff": -0.75}
    axes = list(range(static_rank(data, context, "X")))
    op, inputs = _by_scales(context, data, scales, axes, common)
    context.emit(op, [*inputs, context.const(axes, ElementType.I64, "axes")])
    context.explain(f"{context.label}: -> Interpolate-11 mode={common['mode']}, asymmetric by scales "
                    f"{scales.tolist()} (Upsample's rule, as Resize-10)")


RESIZE_TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
"""ONNX coordinate transformations Interpolate-11 computes the same way."""
RESIZE_MODES = {"nearest": "nearest", "linear": "linear_onnx", "cubic": "cubic"}
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@imports("Resize", versions=(10, 11, 13, 18, 19))
def resize(context: ImportContext) -> None:
    """Resize -> Interpolate-11: mode nearest/linear/cubic -> nearest/linear_onnx/cubic, the coordinate transform
    and nearest mode by name, cubic_coeff_a as cube_coeff; scales (shape_calculation_mode scales) or sizes.
    Refused: tf_crop_and_resize and half_pixel_symmetric, exclude_outside=1, antialias=1, keep_aspect_ratio_policy
    other than stretch, and scales whose output length IR would compute differently from ONNX's floor(length *
    scale). Resize-10 is asymmetric with nearest_mode simple (ceil when shrinking, else floor), as onnxruntime runs
    it."""
    version = context.version
    if version == 10:
        attributes = context.attributes({"mode": "STRING"})
        attributes |= {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "simple"}
        names = node_inputs(context, 2, 2)
        data = context.tensor(names[0])
        scales_name, sizes_name, axes_attr = names[1], "", None
    else:
        allowed = {"coordinate_transformation_mode": "STRING", "cubic_coeff_a": "FLOAT", "exclude_outside": "INT",
                   "extrapolation_value": "FLOAT", "mode": "STRING", "nearest_mode": "STRING"}
        if version >= 18:
            allowed |= {"antialias": "INT", "axes": "INTS", "keep_aspect_ratio_policy": "STRING"}
        attributes = context.attributes(allowed)
        names = node_inputs(context, 1, 4)
        names += [""] * (4 - len(names))
        data = context.tensor(names[0])
        scales_name, sizes_name, axes_attr = names[2], names[3], attributes.get("axes")
    one_output(context)
    mode = text(attributes.get("mode", "nearest"))
    transform = text(attributes.get("coordinate_transformation_mode", "half_pixel"))
    nearest = text(attributes.get("nearest_mode", "round_prefer_floor"))
    if mode not in RESIZE_MODES:
        raise context.fail(f"mode must be nearest, linear or cubic; got {mode!r}")
    if transform not in RESIZE_TRANSFORMS:
        raise context.fail(f"coordinate_transformation_mode {transform!r} has no Interpolate-11 equivalent (it "
                           f"computes {', '.join(RESIZE_TRANSFORMS)})")
    if nearest not in NEAREST_MODES and version > 10:
        raise context.fail(f"nearest_mode must be one of {', '.join(NEAREST_MODES)}; got {nearest!r}")
    for name, default, why in (("exclude_outside", 0, "IR's cubic always weighs the samples outside"),
                               ("antialias", 0, "IR's antialiased linear mode is not ONNX's")):
        if attributes.get(name, default) != default:
            raise context.fail(f"{name}={attributes[name]}: {why}, so irgraph does not convert it")
    policy = text(attributes.get("keep_aspect_ratio_policy", "stretch"))
    if policy != "stretch":
        raise context.fail(f"keep_aspect_ratio_policy={policy!r} has no Interpolate-11 equivalent")
    rank = static_rank(data, context, "X")
    axes = [int(a) % rank for a in axes_attr] if axes_attr is not None else list(range(rank))
    if scales_name and sizes_name:
        raise context.fail("takes scales or sizes, not both")
    if not scales_name and not sizes_name:
        raise context.fail("needs scales or sizes")
    common: dict[str, Any]  # mixed values, spread into the op
    common = {"mode": RESIZE_MODES[mode], "coordinate_transformation_mode": transform, "nearest_mode": nearest,
              "cube_coeff": float(attributes.get("cubic_coeff_a", -0.75))}
    if sizes_name:
        sizes = context.tensor(sizes_name)
        op: Op = Interpolate11(shape_calculation_mode="sizes", **common)
        inputs = [data, sizes]
    else:
        found = context.constant(scales_name)
        if found is None:
            raise context.fail("its scales are computed; irgraph needs them constant to check IR's output lengths "
                               "against ONNX's floor(length * scale)")
        op, inputs = _by_scales(context, data, np.asarray(found[1], np.float32).reshape(-1), axes, common)
    inputs.append(context.const(axes, ElementType.I64, "axes"))
    context.emit(op, inputs)
    context.explain(f"{context.label}: -> Interpolate-11 mode={common['mode']}, {transform}"
                    f"{', nearest_mode ' + nearest if mode == 'nearest' else ''} by "
                    f"{'sizes' if sizes_name else 'scales'} on axes {axes}")


# ------------------------------------------------------------------------------------ GridSample, RoiAlign
GRID_SAMPLE_MODES = {"bilinear": "bilinear", "linear": "bilinear", "bicubic": "bicubic", "cubic": "bicubic",
                     "nearest": "nearest"}
"""ONNX GridSample mode (opset 16's names, then opset 20's) -> GridSample-9 mode."""


@imports("GridSample", versions=(16, 20, 22))
def grid_sample(context: ImportContext) -> None:
    """GridSample -> GridSample-9, the attributes by name (opset 20 renamed bilinear/bicubic to linear/cubic).
    Refused: data other than 4-D (opset 20's volumetric sampling; GridSample-9 samples N, C, H, W). IR reflects
    each tap's index where ONNX reflects the coordinate; for the taps of bilinear, bicubic and nearest sampling
    both give the same pixels, so values agree up to rounding (onnxruntime 1.31.1: within 3 f32 ULP)."""
    attributes = context.attributes({"align_corners": "INT", "mode": "STRING", "padding_mode": "STRING"})
    one_output(context)
    data, grid = ports_of(context, node_inputs(context, 2, 2))
    mode = text(attributes.get("mode", "bilinear" if context.version < 20 else "linear"))
    padding = text(attributes.get("padding_mode", "zeros"))
    names = ("bilinear", "bicubic", "nearest") if context.version < 20 else ("linear", "cubic", "nearest")
    if mode not in names:
        raise context.fail(f"mode must be one of {', '.join(names)}; got {mode!r}")
    if padding not in ("zeros", "border", "reflection"):
        raise context.fail(f"padding_mode must be zeros, border or reflection; got {padding!r}")
    shape = context.type_of(data).shape
    if not shape.rank_is_dynamic and shape.rank != 4:
        raise context.fail(f"X has rank {shape.rank}: IR's GridSample-9 samples 4-D data (N, C, H, W) only")
    op = GridSample(align_corners=bool(attributes.get("align_corners", 0)), mode=GRID_SAMPLE_MODES[mode],
                    padding_mode=padding)
    context.emit(op, [data, grid])
    context.explain(f"{context.label}: -> GridSample-9 mode={op.mode}, padding_mode={padding}, "
                    f"align_corners={str(op.align_corners).lower()}")


ROI_ALIGN_TRANSFORMS = {"half_pixel": "half_pixel_for_nn", "output_half_pixel": "asymmetric"}
"""ONNX RoiAlign coordinate_transformation_mode -> ROIAlign-9 aligned_mode: ONNX's half_pixel shifts the scaled box
by -0.5 (IR's half_pixel_for_nn; IR's half_pixel adds 0.5 before scaling too); output_half_pixel does not shift and
widens boxes to a pixel, as asymmetric does."""


@imports("RoiAlign", versions=(10, 16, 22))
def roi_align(context: ImportContext) -> None:
    """RoiAlign -> ROIAlign-9 mode avg, aligned_mode from coordinate_transformation_mode (RoiAlign-10 has none: it
    is output_half_pixel). Refused: mode max, where ONNX pools the largest of each sample's four weighted taps
    (onnx.reference and onnxruntime 1.31.1) and IR the largest interpolated sample, from 0."""
    allowed = {"mode": "STRING", "output_height": "INT", "output_width": "INT", "sampling_ratio": "INT",
               "spatial_scale": "FLOAT"}
    if context.version >= 16:
        allowed["coordinate_transformation_mode"] = "STRING"
    attributes = context.attributes(allowed)
    one_output(context)
    data, rois, indices = ports_of(context, node_inputs(context, 3, 3))
    mode = text(attributes.get("mode", "avg"))
    if mode != "avg":
        raise context.fail(f"mode {mode!r}: ONNX's max pools the largest weighted tap of each sample, IR's ROIAlign "
                           "the largest interpolated sample, so irgraph converts avg only")
    transform = text(attributes.get("coordinate_transformation_mode",
                                    "half_pixel" if context.version >= 16 else "output_half_pixel"))
    if transform not in ROI_ALIGN_TRANSFORMS:
        raise context.fail(f"coordinate_transformation_mode must be half_pixel or output_half_pixel; got "
                           f"{transform!r}")
    op = ROIAlign9(pooled_h=attributes.get("output_height", 1), pooled_w=attributes.get("output_width", 1),
                   sampling_ratio=attributes.get("sampling_ratio", 0),
                   spatial_scale=float(attributes.get("spatial_scale", 1.0)), mode="avg",
                   aligned_mode=ROI_ALIGN_TRANSFORMS[transform])
    context.emit(op, [data, rois, indices])
    context.explain(f"{context.label}: -> ROIAlign-9 mode avg, aligned_mode {op.aligned_mode} ({transform})")
