"""GridSample-9: ONNX GridSample. Interpolate-1, -4 and -11: ONNX Resize (axes as an attribute from opset 18),
after a Pad when OpenVINO's pads_begin/pads_end pad the data with zeros first.

nearest (but for OpenVINO's ``simple`` rounding), linear_onnx and linear (both ONNX's ``linear``:
OpenVINO's triangle filter without antialias computes the same values, within 2 ULP, up and down)
and cubic (its cube_coeff is ONNX's cubic_coeff_a) map onto Resize with the same coordinate
transformation; in scales mode the scales are passed on, so coordinates map as in OpenVINO, once the
output lengths ONNX computes (floor(length * scale)) are checked to be the IR's (OpenVINO adds 1e-6
to the scale first). antialias and the Pillow modes are refused: onnxruntime 1.31.1's antialiased
linear Resize differs from OpenVINO's by 0.13 on a 8x9 -> 3x4 downscale.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, constant_ints, input_rank, int64_input
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.image.grid_sample import GridSample
from irgraph.ops.image.interpolate import Interpolate1, Interpolate4, Interpolate11
from irgraph.ops.op import normalize_axis

_MODES = {"nearest": "nearest", "linear_onnx": "linear", "linear": "linear", "cubic": "cubic"}
_COMPUTED_SCALES = ("its scales are computed in the run: ONNX Resize takes scales or sizes, not both (Resize-13/18), "
                    "and with scales alone its output length is floor(length * scale) where OpenVINO's adds 1e-6 "
                    "first, which only constant scales let the export check")


@exports(Interpolate4, Interpolate11)
def interpolate(node: Node, op: Any, ctx: ExportContext) -> list:
    """Resize of the (padded) data over the constant axes, by the constant scales or sizes."""
    for reason in _unexportable(op):
        raise ctx.refuse(reason)
    rank = input_rank(ctx, node, 0)
    names = ctx.inputs(node)
    values_index, axes_index = (2 if op.uses_scales else 1, 3) if isinstance(op, Interpolate4) else (1, 2)
    has_axes = len(names) > axes_index and names[axes_index]
    axes = [normalize_axis(a, rank) for a in constant_ints(ctx, node, axes_index, "axes")] if has_axes else \
        list(range(rank))
    values = ctx.static_value(node, values_index)
    if values is None:
        if op.uses_scales:
            raise ctx.refuse(_COMPUTED_SCALES)
        return _resize(node, op, ctx, axes, None, computed=values_index)
    return _resize(node, op, ctx, axes, np.asarray(values).reshape(-1)[:len(axes)])


@exports(Interpolate1)
def interpolate1(node: Node, op: Interpolate1, ctx: ExportContext) -> list:
    """Interpolate-1 as OpenVINO runs it (``transform_v0_to_v4``, as irgraph does): Interpolate-4 in sizes mode
    with nearest_mode simple (refused: no Resize form), linear as linear_onnx below rank 5, cubic with
    cube_coeff -0.75, coordinates asymmetric, align_corners when set, half_pixel for the linear modes without
    pads unless a rank-4 input resizes axes {2, 3}."""
    rank = input_rank(ctx, node, 0)
    axes = sorted({normalize_axis(a, rank) for a in op.axes})
    values = ctx.static_value(node, 1)
    mode = op.mode
    if mode == "linear":
        mode = "linear_onnx" if rank < 5 else "linear"
    transform = "asymmetric"
    if op.align_corners:
        transform = "align_corners"
    elif mode in ("linear_onnx", "linear") and not any(op.pads_begin) and not any(op.pads_end) and \
            not (rank == 4 and axes == [2, 3]):
        transform = "half_pixel"
    as_v4 = SimpleNamespace(mode=mode, antialias=op.antialias, nearest_mode="simple", uses_scales=False,
                            coordinate_transformation_mode=transform, cube_coeff=-0.75, pads_begin=op.pads_begin,
                            pads_end=op.pads_end)
    for reason in _unexportable(as_v4):
        raise ctx.refuse(reason)
    if values is None:
        return _resize(node, as_v4, ctx, axes, None, computed=1)
    return _resize(node, as_v4, ctx, axes, np.asarray(values).reshape(-1)[:len(axes)])


def _unexportable(op: Any) -> list[str]:
    """Why the Interpolate attributes have no exact ONNX Resize form (none when they have one)."""
    if op.mode not in _MODES:
        return [f"mode {op.mode} has no exact ONNX Resize form (nearest, linear, linear_onnx and cubic do)"]
    if op.antialias:
        return ["antialias has no exact ONNX Resize form (ONNX's antialiased filter differs from OpenVINO's)"]
    if op.mode == "nearest" and op.nearest_mode == "simple":
        return ["nearest_mode simple has no ONNX Resize form"]
    return []


def _resize(node: Node, op: Any, ctx: ExportContext, axes: list[int], flat: np.ndarray | None,
            computed: int | None = None) -> list:
    """Resize of the (padded) data over ``axes`` by the scales or sizes ``flat``, or by the sizes input
    ``computed`` (LR-ASPP's sizes from a ShapeOf), cast to int64 in the graph."""
    rank = input_rank(ctx, node, 0)
    names = ctx.inputs(node)
    made: list = []
    data = names[0]
    begin = [op.pads_begin[a] if a < len(op.pads_begin) else 0 for a in range(rank)]
    end = [op.pads_end[a] if a < len(op.pads_end) else 0 for a in range(rank)]
    if any(begin) or any(end):
        padded = ctx.temp(node, "padded")
        made.append(ctx.make(node, "Pad", [data, ctx.initializer(node, "pads", np.asarray(begin + end, np.int64))],
                             [padded], step="padded", mode="constant"))
        data = padded
    attributes: dict[str, Any] = {"mode": _MODES[op.mode],
                                  "coordinate_transformation_mode": op.coordinate_transformation_mode}
    if op.mode == "nearest":
        attributes["nearest_mode"] = op.nearest_mode
    if op.mode == "cubic":
        attributes["cubic_coeff_a"] = float(op.cube_coeff)
    if ctx.opset >= 18:
        attributes["axes"] = axes
    if flat is None:
        assert computed is not None
        sizes = _computed_sizes(node, ctx, computed, axes, data, made)
        made.append(ctx.make(node, "Resize", [data, "", "", sizes], ctx.outputs(node), **attributes))
        return made
    shape = ctx.input_type(node, 0).shape
    output_shape = ctx.output_type(node, 0).shape
    if ctx.opset >= 18:
        chosen = flat
    else:  # Resize before 18 takes one scale or size per dim
        if op.uses_scales:
            full = np.ones(rank, np.float32)
        else:
            if not all(shape[a].is_static for a in range(rank) if a not in axes):
                raise ctx.refuse("sizes over some axes need the other dims static before ONNX Resize-18 (its axes)")
            full = np.asarray([shape[a].value + begin[a] + end[a] if a not in axes else 0 for a in range(rank)],
                              np.int64)
        for axis, value in zip(axes, flat, strict=True):
            full[axis] = value
        chosen = full
    if op.uses_scales:
        scales = np.asarray(chosen, np.float32)
        for axis, scale in zip(axes, np.asarray(flat, np.float32), strict=True):
            length, wanted = shape[axis], output_shape[axis]
            if length.is_static and wanted.is_static:
                onnx_length = int(np.float32(length.value + begin[axis] + end[axis]) * scale)
                if onnx_length != wanted.value:
                    raise ctx.refuse(f"scale {scale} of axis {axis} gives {onnx_length} elements in ONNX Resize "
                                     f"(floor(length * scale)) but {wanted.value} in OpenVINO (which adds 1e-6)")
        inputs = [data, "", ctx.initializer(node, "scales", scales)]
    else:
        inputs = [data, "", "", ctx.initializer(node, "sizes", np.asarray(chosen, np.int64))]
    made.append(ctx.make(node, "Resize", inputs, ctx.outputs(node), **attributes))
    return made


def _computed_sizes(node: Node, ctx: ExportContext, index: int, axes: list[int], data: str, made: list) -> str:
    """The sizes input ``index`` as ONNX Resize takes it: int64, its first ``len(axes)`` values (OpenVINO reads
    no more), and before opset 18 (no axes attribute) scattered into the shape of the (padded) ``data``."""
    pattern = Pattern(ctx, node)
    sizes = int64_input(ctx, node, index, "sizes", pattern.made, scalar=False)
    given = ctx.input_type(node, index).shape
    if given.rank_is_dynamic or given.rank != 1 or not given[0].is_static or given[0].value != len(axes):
        sizes = pattern.step("Slice", [sizes, pattern.int64("sizes_start", [0]),
                                       pattern.int64("sizes_end", [len(axes)]), pattern.int64("sizes_axes", [0])],
                             "sizes_used")
    if ctx.opset < 18:
        shape = pattern.step("Shape", [data], "data_shape")
        sizes = pattern.step("ScatterElements", [shape, pattern.int64("sizes_at", axes), sizes], "sizes_full",
                             axis=0)
    ctx.explain(f"layer {node.id} {node.name!r}: the Resize sizes are computed in the run (input {index}, cast to "
                "int64)")
    made += pattern.made
    return sizes


@exports(GridSample)
def grid_sample(node: Node, op: GridSample, ctx: ExportContext) -> list:
    """ONNX GridSample (opset 16 on; opset 20 renamed bilinear/bicubic to linear/cubic). ONNX reflects the
    coordinate where IR reflects each tap's index: the taps read the same pixels, so values agree up to rounding
    (onnxruntime 1.31.1: within 4 ULP, bicubic 8)."""
    if ctx.opset < 16:
        raise ctx.refuse(f"ONNX has GridSample from opset 16; exporting opset {ctx.opset}")
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(op.mode, op.mode) if ctx.opset >= 20 else op.mode
    return [ctx.make(node, "GridSample", ctx.inputs(node)[:2], ctx.outputs(node), mode=mode,
                     padding_mode=op.padding_mode, align_corners=int(op.align_corners))]
