"""DeformableConvolution-1 and -8 as ONNX DeformConv-19.

ONNX's DeformConv takes data, weights, offsets (the same ``[deformable group, tap, (y, x)]`` channels), an optional
bias and an optional mask (-8's), ``group`` and ``offset_group``, explicit pads (no auto_pad: OpenVINO's same_* pads
are computed on static shapes). It samples bilinearly with zeros beyond every edge (onnx.reference through
GridSample zeros/align_corners, onnxruntime as torchvision), which is -8's ``bilinear_interpolation_pad``.

Without it (DeformableConvolution-1, and -8 by default) OpenVINO reads nothing for a sample outside ``[0, H) x
[0, W)`` and clamps one in the last pixel's span (``(H - 1, H)``) to the last row or column. The export rewrites the
offsets so that ONNX's rule gives those values: each sampling position (the tap's base position plus its offset,
computed as OpenVINO adds them) is kept inside, clamped to ``H - 1``/``W - 1`` in the last span, and moved to
``-4`` (whose four neighbours are all outside, so ONNX reads zero for the sample) outside; the offset is that
position minus the base. Positions that stay round-trip through ``base + (position - base)`` within an f32 ulp of
the base, which only moves a sample within its pixel.

f16 and bf16 are computed in f32 and rounded once, as irgraph and OpenVINO's reference do (ONNX's DeformConv takes no
bf16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.convolution.deformable_convolution import (
    DeformableConvolution,
    DeformableConvolution8,
    DeformableConvolutionBase,
)

DEFORM_CONV_OPSET = 19
OUTSIDE = -4.0
"""A sampling position whose four neighbours are all outside the data: ONNX's DeformConv reads zero for it."""
_NARROW = (ElementType.F16, ElementType.BF16)


def _static(ctx: ExportContext, node: Node, index: int, what: str) -> tuple[int, ...]:
    shape = ctx.input_type(node, index).shape if index >= 0 else ctx.output_type(node, 0).shape
    if shape.rank_is_dynamic or not all(d.is_static for d in tuple(shape)[1:]):
        raise ctx.refuse(f"its {what} has the shape {shape}; {_WHY_STATIC}")
    return tuple(d.value for d in tuple(shape)[1:])


_WHY_STATIC = ("the export needs static dims past the batch (ONNX's DeformConv has no auto_pad, and the sampling "
               "positions of OpenVINO's edge rule are placed at export)")


@exports(DeformableConvolution, DeformableConvolution8)
def deformable_convolution(node: Node, op: DeformableConvolutionBase, ctx: ExportContext) -> list:
    """DeformConv-19; without ``bilinear_interpolation_pad`` the offsets rewritten first (module docstring)."""
    if ctx.opset < DEFORM_CONV_OPSET:
        raise ctx.refuse(f"ONNX has DeformConv from opset {DEFORM_CONV_OPSET}; exporting opset {ctx.opset}")
    channels_and_size = _static(ctx, node, 0, "data")
    filters = _static(ctx, node, 2, "filters")
    if len(channels_and_size) != 3 or len(filters) != 3:
        raise ctx.refuse("DeformConv-19 is exported for 2D data [N, C, H, W] only")
    height, width = channels_and_size[1:]
    kernel = filters[1:]
    strides, dilations, _, _ = op.resolved(2)
    begin, end = op.forward_pads((height, width), kernel)
    element_type = ctx.input_type(node, 0).element_type
    pattern = Pattern(ctx, node)
    names = ctx.inputs(node)
    data, offsets, weights = names[:3]
    mask = names[3] if len(names) > 3 and names[3] else ""
    if element_type in _NARROW:
        f32 = onnx_type_code(ElementType.F32)
        data = pattern.step("Cast", [data], "data_f32", to=f32)
        weights = pattern.step("Cast", [weights], "filters_f32", to=f32)
        mask = mask and pattern.step("Cast", [mask], "mask_f32", to=f32)
        if op.pads_outside:  # the edge rule adds the positions in the data type first
            offsets = pattern.step("Cast", [offsets], "offsets_f32", to=f32)
    if not op.pads_outside:
        out_dims = _static(ctx, node, -1, "output")[1:]
        offsets = _edge_offsets(pattern, op, offsets, element_type, (height, width), kernel, out_dims,
                                (strides, dilations, begin))
    attributes: dict[str, Any] = {"group": op.group, "offset_group": op.deformable_group, "kernel_shape": list(kernel),
                                  "strides": list(strides), "dilations": list(dilations), "pads": [*begin, *end]}
    inputs = [data, weights, offsets, *(["", mask] if mask else [])]
    if element_type not in _NARROW:
        pattern.made.append(ctx.make(node, "DeformConv", inputs, ctx.outputs(node), **attributes))
        return pattern.made
    convolved = pattern.step("DeformConv", inputs, "f32", **attributes)
    pattern.made.append(ctx.make(node, "Cast", [convolved], ctx.outputs(node), to=onnx_type_code(element_type)))
    return pattern.made


def sampling_bases(kernel: tuple[int, ...], out_dims: tuple[int, ...],
                   window: tuple[tuple[int, ...], tuple[int, ...], list[int]]) -> np.ndarray:
    """Each tap's position before its offset, ``[1, 1, taps, 2 (y, x), OH, OW]``: ``o * stride - pad_begin + k *
    dilation`` per axis, as ``DeformableConvolutionBase.evaluate`` places them."""
    strides, dilations, begin = window
    kernel_y, kernel_x = kernel
    out_y, out_x = out_dims
    taps = kernel_y * kernel_x
    bases = np.empty((1, 1, taps, 2, out_y, out_x), np.float64)
    tap_y = np.repeat(np.arange(kernel_y) * dilations[0], kernel_x)
    tap_x = np.tile(np.arange(kernel_x) * dilations[1], kernel_y)
    bases[0, 0, :, 0] = (np.arange(out_y) * strides[0] - begin[0])[None, :, None] + tap_y[:, None, None]
    bases[0, 0, :, 1] = (np.arange(out_x) * strides[1] - begin[1])[None, None, :] + tap_x[:, None, None]
    return bases


def _edge_offsets(pattern: Pattern, op: DeformableConvolutionBase, offsets: str, element_type: ElementType,
                  size: tuple[int, int], kernel: tuple[int, ...], out_dims: tuple[int, ...],
                  window: tuple[tuple[int, ...], tuple[int, ...], list[int]]) -> str:
    """Offsets under which ONNX's zero-padded sampling reads what OpenVINO's edge rule reads (module docstring).

    The positions are added in the data type (a narrow one then Cast to f32), as OpenVINO's reference adds them."""
    ctx, node = pattern.ctx, pattern.node
    taps = kernel[0] * kernel[1]
    wide = ElementType.F64 if element_type is ElementType.F64 else ElementType.F32
    add_type = element_type if element_type in _NARROW or element_type is ElementType.F64 else ElementType.F32

    def constant(step: str, value: np.ndarray, as_type: ElementType = wide) -> str:
        return ctx.initializer(node, step, np.asarray(value).astype(as_type.numpy_dtype))

    bases = sampling_bases(kernel, out_dims, window)
    view = pattern.step("Reshape", [offsets, pattern.int64("offsets_view", [-1, op.deformable_group, taps, 2,
                                                                             *out_dims])], "offsets_view")
    positions = pattern.step("Add", [view, constant("bases", bases, add_type)], "positions")
    if add_type is not wide:
        positions = pattern.step("Cast", [positions], "positions_f32", to=onnx_type_code(wide))
    pair = (1, 1, 1, 2, 1, 1)
    inside = pattern.step("And", [pattern.step("GreaterOrEqual", [positions, constant("zero", np.zeros(1))],
                                               "from_start"),
                                  pattern.step("Less", [positions, constant("sizes", np.reshape(size, pair))],
                                               "before_end")], "inside")
    clamped = pattern.step("Min", [positions, constant("last", np.reshape(np.subtract(size, 1), pair))], "clamped")
    kept = pattern.step("Where", [inside, clamped, constant("outside", np.asarray(OUTSIDE))], "kept")
    moved = pattern.step("Sub", [kept, constant("bases_wide", bases)], "moved")
    return pattern.step("Reshape", [moved, pattern.int64("offsets_shape", [0, -1, *out_dims])], "offsets")
