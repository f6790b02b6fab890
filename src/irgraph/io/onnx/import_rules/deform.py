"""ONNX -> IR rule for DeformConv (19, 22): DeformableConvolution-8 with ``bilinear_interpolation_pad``.

ONNX's DeformConv samples bilinearly with zeros beyond every edge (onnx.reference through GridSample zeros with
align_corners, onnxruntime 1.31.1 as torchvision): -8's ``bilinear_interpolation_pad=true``. Its offsets and mask
have IR's channel layout (``[offset group, tap, (y, x)]`` and ``[offset group, tap]``); its inputs come in another
order (X, W, offset, B, mask against data, offsets, filters, mask). The bias B becomes an Add-1 of B reshaped to
``[1, C, 1, 1]``, as for Conv. IR's op is 2-D: data of another rank is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irgraph.core.element_types import ElementType
from irgraph.io.onnx.import_rules.helpers import helper_layer, one_output
from irgraph.io.onnx.import_rules.registry import imports
from irgraph.ops.arithmetic.add import Add
from irgraph.ops.convolution.deformable_convolution import DeformableConvolution8
from irgraph.ops.shape.reshape import Reshape

if TYPE_CHECKING:
    from irgraph.io.onnx.import_rules.registry import ImportContext

_ATTRIBUTES = {"dilations": "INTS", "group": "INT", "kernel_shape": "INTS", "offset_group": "INT", "pads": "INTS",
               "strides": "INTS"}


@imports("DeformConv", versions=(19, 22))
def deform_conv(context: ImportContext) -> None:
    """DeformConv -> DeformableConvolution-8 (bilinear_interpolation_pad=true), the bias an Add-1 (module
    docstring)."""
    attributes = context.attributes(_ATTRIBUTES)
    one_output(context)
    names = list(context.node.input) + [""] * (5 - len(context.node.input))
    if len(context.node.input) > 5 or not all(names[:3]):
        raise context.fail(f"takes X, W, offset and the optional B and mask; got {list(context.node.input)}")
    data, weights, offsets = (context.tensor(name) for name in names[:3])
    bias = context.tensor(names[3]) if names[3] else None
    mask = context.tensor(names[4]) if names[4] else None
    shape = context.type_of(data).shape
    if shape.rank_is_dynamic or shape.rank != 4:
        raise context.fail(f"X has the shape {shape}: IR's DeformableConvolution is 2-D (N, C, H, W)")
    pads = list(attributes.get("pads", [0] * 4))
    strides, dilations = list(attributes.get("strides", [1, 1])), list(attributes.get("dilations", [1, 1]))
    if len(pads) != 4 or len(strides) != 2 or len(dilations) != 2:
        raise context.fail(f"strides {strides}, dilations {dilations} and pads {pads} do not fit 2 spatial dims")
    kernel = attributes.get("kernel_shape")
    filters = context.type_of(weights).shape
    if kernel is not None and not filters.rank_is_dynamic and filters.rank == 4 and \
            any(d.is_static and d.value != k for d, k in zip(tuple(filters)[2:], kernel, strict=True)):
        raise context.fail(f"kernel_shape {list(kernel)} differs from the weights' {filters}")
    op = DeformableConvolution8(strides=tuple(strides), dilations=tuple(dilations), pads_begin=tuple(pads[:2]),
                                pads_end=tuple(pads[2:]), group=attributes.get("group", 1),
                                deformable_group=attributes.get("offset_group", 1), bilinear_interpolation_pad=True)
    inputs = [data, offsets, weights, *([mask] if mask is not None else [])]
    context.explain(f"{context.label}: -> DeformableConvolution-8 bilinear_interpolation_pad=true (ONNX samples with "
                    "zeros beyond the edges)")
    if bias is None:
        context.emit(op, inputs)
        return
    convolved = helper_layer(context, op, inputs, "convolution")
    shaped = helper_layer(context, Reshape(special_zero=False),
                          [bias, context.const([1, -1, 1, 1], ElementType.I64, "bias_shape")], "bias")
    context.emit(Add(), [convolved, shaped])
    context.explain(f"{context.label}: the bias B -> Add-1 of B reshaped to [1, C, 1, 1]")
