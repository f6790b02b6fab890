"""Convolutions and pooling: Conv, ConvTranspose, MaxPool, AveragePool, their windows as ONNX spells them.

OpenVINO's ``pads_begin`` and ``pads_end`` become ONNX's one ``pads`` list (begins, then ends);
``auto_pad`` same_upper/same_lower/valid become SAME_UPPER/SAME_LOWER/VALID (the same padding
rule: the odd pad at the end for upper); an empty strides or dilations list means ones, which is
ONNX's default, so it is left out. GroupConvolution's filters (G, O/G, C/G, *K) are ONNX's
(O, C/G, *K) once the first two dims are merged (a Reshape) and ``group`` is G.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import input_rank, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14
from irgraph.ops.pooling.max_pool import MaxPool, MaxPool8, MaxPool14
from irgraph.shapes import Dim

_AUTO_PAD = {"same_upper": "SAME_UPPER", "same_lower": "SAME_LOWER", "valid": "VALID"}


def window_attributes(op: Any, count: int, *, dilations: tuple[int, ...] = (),
                      resolved: tuple[list[int], list[int]] | None = None) -> dict[str, Any]:
    """strides, dilations and pads (or auto_pad) as ONNX attributes for ``count`` spatial dims.

    ``resolved`` are same_* pads computed on static shapes: written as explicit pads, because
    onnxruntime 1.31.1 sizes a dilated SAME_UPPER window without its dilation (5 -> 4 for a 2x2
    kernel dilated by 2).
    """
    attributes: dict[str, Any] = {}
    if op.strides:
        attributes["strides"] = list(op.strides)
    if dilations:
        attributes["dilations"] = list(dilations)
    if resolved is not None:
        attributes["pads"] = resolved[0] + resolved[1]
    elif op.auto_pad in _AUTO_PAD:
        attributes["auto_pad"] = _AUTO_PAD[op.auto_pad]
    else:
        begin = list(op.pads_begin) or [0] * count
        end = list(op.pads_end) or [0] * count
        attributes["pads"] = begin + end
    return attributes


def _static_spatial(ctx: ExportContext, node: Node, index: int, prefix: int) -> list[int] | None:
    """The static spatial dims of input ``index`` (after ``prefix`` leading dims), else None."""
    shape = ctx.input_type(node, index).shape
    if shape.rank_is_dynamic or not all(d.is_static for d in tuple(shape)[prefix:]):
        return None
    return [d.value for d in tuple(shape)[prefix:]]  # type: ignore[misc]


def _grouped_filters(ctx: ExportContext, node: Node, made: list, inner: int) -> tuple[str, int]:
    """Filters (G, A, B, *K) reshaped to (G * A, B, *K); the tensor name and G. ``inner`` is B's index (2)."""
    shape = ctx.input_type(node, 1).shape
    if shape.rank_is_dynamic or not all(d.is_static for d in tuple(shape)[inner:]) or not shape[0].is_static:
        raise ctx.refuse(f"the grouped filters of shape {shape} need static groups and per-group dims to become "
                         "ONNX weights")
    groups = shape[0].value
    target = np.asarray([-1, *(d.value for d in tuple(shape)[inner:])], dtype=np.int64)
    reshaped = ctx.temp(node, "filters")
    made.append(ctx.make(node, "Reshape", [ctx.inputs(node)[1], ctx.initializer(node, "filters_shape", target)],
                         [reshaped], step="filters"))
    return reshaped, groups  # type: ignore[return-value]


@exports(Convolution, GroupConvolution)
def convolution(node: Node, op: Any, ctx: ExportContext) -> list:
    """Conv; GroupConvolution is Conv with ``group`` and its filters' first two dims merged."""
    count = input_rank(ctx, node, 0) - 2
    data, filters = ctx.inputs(node)[:2]
    made: list = []
    resolved = None
    if op.auto_pad in ("same_upper", "same_lower"):
        prefix = 3 if isinstance(op, GroupConvolution) else 2
        data_dims, kernel_dims = _static_spatial(ctx, node, 0, 2), _static_spatial(ctx, node, 1, prefix)
        if data_dims is not None and kernel_dims is not None:
            resolved = op.forward_pads(data_dims, kernel_dims)
    attributes = window_attributes(op, count, dilations=op.dilations, resolved=resolved)
    if isinstance(op, GroupConvolution):
        filters, attributes["group"] = _grouped_filters(ctx, node, made, 2)
    made.append(ctx.make(node, "Conv", [data, filters], ctx.outputs(node), **attributes))
    return made


@exports(ConvolutionBackpropData, GroupConvolutionBackpropData)
def convolution_backprop_data(node: Node, op: Any, ctx: ExportContext) -> list:
    """ConvTranspose: OpenVINO's filters (C_in, C_out, *K) are ONNX's weights; pads and output_padding
    mean the same. An output_shape input or same_* auto_pad (OpenVINO then places the padding its
    own way) are refused."""
    names = ctx.inputs(node)
    if len(names) > 2 and names[2]:
        raise ctx.refuse("an output_shape input has no exact ONNX ConvTranspose form (ONNX pads it differently)")
    if op.auto_pad in ("same_upper", "same_lower"):
        raise ctx.refuse(f"auto_pad {op.auto_pad} of a backprop-data convolution has no exact ONNX form")
    count = input_rank(ctx, node, 0) - 2
    made: list = []
    attributes = window_attributes(op, count, dilations=op.dilations)
    if op.output_padding:
        attributes["output_padding"] = list(op.output_padding)
    filters = names[1]
    if isinstance(op, GroupConvolutionBackpropData):
        filters, attributes["group"] = _grouped_filters(ctx, node, made, 2)
    made.append(ctx.make(node, "ConvTranspose", [names[0], filters], ctx.outputs(node), **attributes))
    return made


def _ceil_mode(ctx: ExportContext, op: Any) -> dict[str, int]:
    if op.rounding_type == "ceil_torch":
        raise ctx.refuse("rounding_type ceil_torch has no ONNX form (ONNX's ceil_mode keeps windows that start "
                         "in the padding)")
    return {"ceil_mode": 1} if op.rounding_type == "ceil" else {}


@exports(MaxPool, MaxPool8, MaxPool14)
def max_pool(node: Node, op: Any, ctx: ExportContext) -> list:
    """MaxPool; MaxPool-8's indices are ONNX's Indices output (flat over the whole tensor, row-major)
    when its axis is 0, cast to i32 when asked."""
    count = len(op.kernel)
    attributes = window_attributes(op, count, dilations=getattr(op, "dilations", ()),
                                   resolved=_pool_pads(ctx, node, op))
    attributes.update(_ceil_mode(ctx, op), kernel_shape=list(op.kernel))
    (data,) = ctx.inputs(node)
    outputs = ctx.outputs(node)
    made: list = []
    if node.num_outputs == 1:
        made.append(ctx.make(node, "MaxPool", [data], outputs, **attributes))
        return made
    if op.axis not in (0, -input_rank(ctx, node, 0)):
        raise ctx.refuse(f"MaxPool indices counted from axis {op.axis} have no ONNX form (ONNX counts over the "
                         "whole tensor, axis 0)")
    indices = outputs[1]
    if op.index_element_type.ir_name != "i64":
        indices = ctx.temp(node, "indices")
    made.append(ctx.make(node, "MaxPool", [data], [outputs[0], indices], **attributes))
    if indices != outputs[1]:
        made.append(ctx.make(node, "Cast", [indices], [outputs[1]], step="indices",
                             to=onnx_type_code(op.index_element_type)))
    return made


@exports(AvgPool, AvgPool14)
def avg_pool(node: Node, op: Any, ctx: ExportContext) -> list:
    """AveragePool: exclude-pad is count_include_pad=0; without it OpenVINO divides by the kernel size
    where there is padding (count_include_pad=1) and by the taps inside the data where there is none."""
    count = len(op.kernel)
    resolved = _pool_pads(ctx, node, op)
    attributes = window_attributes(op, count, resolved=resolved)
    attributes.update(_ceil_mode(ctx, op), kernel_shape=list(op.kernel))
    if op.auto_pad in ("same_upper", "same_lower") and resolved is None:
        raise ctx.refuse("AvgPool same_* padding on dynamic dims: whether it pads (and so what it divides by) "
                         "depends on the run")
    begin, end = resolved if resolved is not None else (op.pads_begin, op.pads_end)
    padded = op.auto_pad != "valid" and any((*begin, *end))
    attributes["count_include_pad"] = int(padded and not op.exclude_pad)
    return [ctx.make(node, "AveragePool", ctx.inputs(node), ctx.outputs(node), **attributes)]


def _pool_pads(ctx: ExportContext, node: Node, op: Any) -> tuple[list[int], list[int]] | None:
    """same_* pads resolved on static spatial dims (None for other auto_pad values or dynamic dims)."""
    if op.auto_pad not in ("same_upper", "same_lower"):
        return None
    dims = _static_spatial(ctx, node, 0, 2)
    return None if dims is None else op.pads_for([Dim.static(d) for d in dims])
