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

from irgraph.core.shapes import Dim
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import input_rank, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.convolution.convolution import Convolution
from irgraph.ops.convolution.convolution_backprop_data import ConvolutionBackpropData
from irgraph.ops.convolution.group_convolution import GroupConvolution
from irgraph.ops.convolution.group_convolution_backprop_data import GroupConvolutionBackpropData
from irgraph.ops.pooling.avg_pool import AvgPool, AvgPool14, AvgPool16
from irgraph.ops.pooling.max_pool import MaxPool, MaxPool8, MaxPool14

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
    return [d.value for d in tuple(shape)[prefix:]]


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
    return reshaped, groups


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


def _pool_window(ctx: ExportContext, node: Node, op: Any, made: list, *, pad_value: float | None,
                 dilations: tuple[int, ...] = ()) -> tuple[str, dict[str, Any], tuple[list[int], list[int]] | None]:
    """The data to pool (padded first where ONNX cannot pad), the window attributes and the pads OpenVINO
    resolved (before any widening below).

    Rounding: ceil_mode is not written, as onnx 1.23's shape inference keeps a last window starting
    in the end padding and onnxruntime 1.31.1 drops it. OpenVINO's ceil and ceil_torch become floor
    rounding over end pads widened until the last window fits: the same windows, which for AvgPool
    divide by the whole kernel where OpenVINO does (any padding) and by the data taps where it does
    not (count_include_pad 0). onnxruntime refuses pads not smaller than the kernel: those become a
    Pad node first (``pad_value``: the lowest value for MaxPool, zeros for AvgPool that counts the
    padding), or a refusal where ``pad_value`` is None.
    """
    count = len(op.kernel)
    resolved = _pool_pads(ctx, node, op)
    if resolved is None and op.auto_pad not in ("same_upper", "same_lower"):
        resolved = ([0] * count, [0] * count) if op.auto_pad == "valid" else \
            (list(op.pads_begin) or [0] * count, list(op.pads_end) or [0] * count)
    dilations = dilations or (1,) * count
    pads = resolved
    if op.rounding_type in ("ceil", "ceil_torch"):
        pads = _ceil_pads(ctx, node, op, resolved, dilations)
    data = ctx.inputs(node)[0]
    if pads is not None and any(p >= k for side in pads for p, k in zip(side, op.kernel, strict=True)):
        if pad_value is None:
            raise ctx.refuse(f"pads {pads[0]} + {pads[1]} not smaller than the kernel {list(op.kernel)}: "
                             "onnxruntime refuses them, and an explicit Pad would move the indices or the divisor")
        if ctx.opset < 18:
            raise ctx.refuse(f"pads {pads[0]} + {pads[1]} not smaller than the kernel {list(op.kernel)} need a Pad "
                             "with axes (opset 18): onnxruntime 1.31.1 fuses a Pad without them back into pool pads, "
                             "which it then refuses")
        dtype = ctx.input_type(node, 0).element_type.numpy_dtype
        padded = ctx.temp(node, "padded")
        # The axes input (spatial axes) also keeps onnxruntime from fusing the Pad back into the pool.
        made.append(ctx.make(node, "Pad", [data, ctx.initializer(node, "pads", np.asarray([*pads[0], *pads[1]],
                                                                                          np.int64)),
                                           ctx.initializer(node, "pad_value", np.asarray(pad_value, dtype)),
                                           ctx.initializer(node, "pad_axes", np.arange(2, count + 2, dtype=np.int64))],
                             [padded], step="padded", mode="constant"))
        data = padded
        pads = ([0] * count, [0] * count)
    attributes = window_attributes(op, count, dilations=tuple(dilations) if dilations != (1,) * count else (),
                                   resolved=pads)
    attributes["kernel_shape"] = list(op.kernel)
    return data, attributes, resolved


def _ceil_pads(ctx: ExportContext, node: Node, op: Any, resolved: tuple[list[int], list[int]] | None,
               dilations: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Pads under which floor rounding gives the IR's (ceil or ceil_torch) output dims: the end pads widened."""
    spatial = _static_spatial(ctx, node, 0, 2)
    out = ctx.output_type(node, 0).shape
    if spatial is None or resolved is None or out.rank_is_dynamic or not all(d.is_static for d in tuple(out)[2:]):
        raise ctx.refuse(f"rounding_type {op.rounding_type} on dynamic dims (ONNX's ceil_mode is not written: onnx "
                         "1.23 and onnxruntime 1.31.1 disagree on it, so the windows are fixed by pads)")
    ends = list(resolved[1])
    for axis, size in enumerate(spatial):
        begin, stride = resolved[0][axis], op.strides[axis]
        window = (op.kernel[axis] - 1) * dilations[axis] + 1
        wanted = tuple(out)[axis + 2].value
        ends[axis] = max(ends[axis], (wanted - 1) * stride + window - size - begin)
        if (size + begin + ends[axis] - window) // stride + 1 != wanted:
            raise ctx.refuse(f"rounding_type {op.rounding_type}: no end padding of axis {axis + 2} gives its "
                             f"{wanted} windows under floor rounding")
    return list(resolved[0]), ends


@exports(MaxPool, MaxPool8, MaxPool14)
def max_pool(node: Node, op: Any, ctx: ExportContext) -> list:
    """MaxPool; MaxPool-8's indices are ONNX's Indices output (flat over the whole tensor, row-major)
    when its axis is 0, cast to i32 when asked; indices nothing reads are not computed."""
    made: list = []
    indices_read = node.num_outputs > 1 and ctx.output_used(node, 1)
    element_type = ctx.input_type(node, 0).element_type
    lowest = np.finfo(element_type.numpy_dtype).min if element_type.is_real else \
        np.iinfo(element_type.numpy_dtype).min
    data, attributes, resolved = _pool_window(ctx, node, op, made, pad_value=None if indices_read else lowest,
                                              dilations=getattr(op, "dilations", ()))
    outputs = ctx.outputs(node)
    if not indices_read:
        made.append(ctx.make(node, "MaxPool", [data], outputs[:1], **attributes))
        return made
    _refuse_empty_windows(ctx, node, op, resolved)
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


def _refuse_empty_windows(ctx: ExportContext, node: Node, op: Any,
                          resolved: tuple[list[int], list[int]] | None) -> None:
    """Refuse MaxPool indices where a window holds no data element: OpenVINO gives index 0 there,
    onnxruntime 1.31.1 a negative one."""
    spatial = _static_spatial(ctx, node, 0, 2)
    out = ctx.output_type(node, 0).shape
    if spatial is None or resolved is None or out.rank_is_dynamic or not all(d.is_static for d in tuple(out)[2:]):
        raise ctx.refuse("MaxPool indices on dynamic dims: a window holding only padding (OpenVINO's index 0, "
                         "onnxruntime's a negative one) cannot be ruled out")
    dilations = getattr(op, "dilations", ()) or (1,) * len(op.kernel)
    for axis, size in enumerate(spatial):
        starts = np.arange(tuple(out)[axis + 2].value) * op.strides[axis] - resolved[0][axis]
        taps = starts[:, None] + np.arange(op.kernel[axis]) * dilations[axis]
        if not np.all(np.any((taps >= 0) & (taps < size), axis=1)):
            raise ctx.refuse(f"a window of axis {axis + 2} holds only padding: OpenVINO's index there is 0, "
                             "onnxruntime 1.31.1's a negative one")


@exports(AvgPool, AvgPool14, AvgPool16)
def avg_pool(node: Node, op: Any, ctx: ExportContext) -> list:
    """AveragePool: exclude-pad is count_include_pad=0; without it OpenVINO divides by the kernel size
    where there is padding (count_include_pad=1) and by the taps inside the data where there is none.
    AvgPool-16's dilations are AveragePool's from opset 19."""
    if op.auto_pad in ("same_upper", "same_lower") and _pool_pads(ctx, node, op) is None:
        raise ctx.refuse("AvgPool same_* padding on dynamic dims: whether it pads (and so what it divides by) "
                         "depends on the run")
    dilations = tuple(getattr(op, "dilations", ()))
    if any(d != 1 for d in dilations) and ctx.opset < 19:
        raise ctx.refuse(f"dilations {list(dilations)}: ONNX's AveragePool takes dilations from opset 19")
    made: list = []
    padded = op.auto_pad != "valid" and _any_pads(ctx, node, op)
    counts_padding = padded and not op.exclude_pad
    data, attributes, _ = _pool_window(ctx, node, op, made, pad_value=0 if counts_padding else None,
                                       dilations=dilations)
    attributes["count_include_pad"] = int(counts_padding)
    made.append(ctx.make(node, "AveragePool", [data], ctx.outputs(node), **attributes))
    return made


def _any_pads(ctx: ExportContext, node: Node, op: Any) -> bool:
    """True when OpenVINO pads the data (after auto_pad): AvgPool then divides by the whole kernel."""
    resolved = _pool_pads(ctx, node, op)
    if resolved is not None:
        return any((*resolved[0], *resolved[1]))
    return any((*op.pads_begin, *op.pads_end))


def _pool_pads(ctx: ExportContext, node: Node, op: Any) -> tuple[list[int], list[int]] | None:
    """same_* pads resolved on static spatial dims (None for other auto_pad values or dynamic dims)."""
    if op.auto_pad not in ("same_upper", "same_lower"):
        return None
    dims = _static_spatial(ctx, node, 0, 2)
    return None if dims is None else op.pads_for([Dim.static(d) for d in dims])
