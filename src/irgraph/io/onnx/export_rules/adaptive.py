"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8 on static spatial dims and a constant output_shape (their windows,
``[floor(i*D/O), ceil((i+1)*D/O))``, are worked out at export).

* AdaptiveAvgPool: the mean over a box is the product of per-dim means, so one Einsum with a constant
  averaging matrix ``[D, O]`` per spatial dim (``1 / window length`` on each window) pools every dim at once.
* AdaptiveMaxPool: the spatial plane flattened, every window's flat positions gathered (row-major, the shorter
  windows padded with a repeat of their first position, which changes neither the maximum nor the first
  position holding it), ReduceMax and ArgMax over them: ArgMax's first maximum is irgraph's row-major first
  position, and the index output gathers its flat position.
"""

from __future__ import annotations

import itertools

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, constant_ints, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.families.adaptive_pooling import windows
from irgraph.ops.pooling.adaptive_avg_pool import AdaptiveAvgPool
from irgraph.ops.pooling.adaptive_max_pool import AdaptiveMaxPool


def _plan(ctx: ExportContext, node: Node) -> tuple[list[int], list[int]]:
    """The static spatial dims and the constant output sizes."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or not all(d.is_static for d in list(shape)[2:]):
        raise ctx.refuse(f"its data has the shape {shape}; the windows need static spatial dims")
    sizes = constant_ints(ctx, node, 1, "output_shape")
    spatial = [d.value for d in list(shape)[2:]]
    if len(sizes) != len(spatial) or any(out < 1 for out in sizes) or 0 in spatial:
        raise ctx.refuse(f"output_shape {sizes} for spatial dims {spatial} makes no windows")
    return spatial, sizes


@exports(AdaptiveAvgPool)
def adaptive_avg_pool(node: Node, op: AdaptiveAvgPool, ctx: ExportContext) -> list:
    """One Einsum with a per-dim averaging matrix (module docstring); floating-point data only."""
    element_type = ctx.input_type(node, 0).element_type
    if not element_type.is_real:
        raise ctx.refuse(f"AdaptiveAvgPool of {element_type} data (integer sums and divisions) has no exported "
                         "pattern")
    spatial, sizes = _plan(ctx, node)
    dtype = element_type.numpy_dtype
    matrices = []
    for axis, (size, out) in enumerate(zip(spatial, sizes, strict=True)):
        matrix = np.zeros((size, out), np.float64)
        for index, (start, end) in enumerate(windows(size, out)):
            matrix[start:end, index] = 1.0 / (end - start)
        matrices.append(ctx.initializer(node, f"mean{axis}", matrix.astype(dtype)))
    inner, outer = "defg"[:len(spatial)], "wxyz"[:len(spatial)]
    equation = f"nc{inner}," + ",".join(f"{i}{o}" for i, o in zip(inner, outer, strict=True)) + f"->nc{outer}"
    return [ctx.make(node, "Einsum", [ctx.inputs(node)[0], *matrices], ctx.outputs(node), equation=equation)]


@exports(AdaptiveMaxPool)
def adaptive_max_pool(node: Node, op: AdaptiveMaxPool, ctx: ExportContext) -> list:
    """Gathered windows, ReduceMax and ArgMax (module docstring)."""
    spatial, sizes = _plan(ctx, node)
    per_dim = [windows(size, out) for size, out in zip(spatial, sizes, strict=True)]
    strides = np.cumprod([1, *spatial[:0:-1]])[::-1]
    boxes = []
    for box in itertools.product(*per_dim):
        flat = sum(np.arange(start, end).reshape((-1,) + (1,) * (len(box) - 1 - axis)) * stride
                   for axis, ((start, end), stride) in enumerate(zip(box, strides, strict=True)))
        boxes.append(np.asarray(flat).reshape(-1))
    width = max(len(positions) for positions in boxes)
    table = np.stack([np.concatenate([positions, np.full(width - len(positions), positions[0])])
                      for positions in boxes]).astype(np.int64)  # [windows, width]
    pattern = Pattern(ctx, node)
    made, step, int64 = pattern.made, pattern.step, pattern.int64

    plane = step("Reshape", [ctx.inputs(node)[0], int64("plane_shape", [0, 0, -1])], "plane")
    gathered = step("Gather", [plane, int64("windows", table)], "gathered", axis=2)  # [N, C, windows, width]
    out_shape = int64("out_shape", [0, 0, *sizes])
    values, indices = ctx.outputs(node)
    if ctx.opset >= 18:
        maxima = step("ReduceMax", [gathered, int64("width_axis", [3])], "maxima", keepdims=0)
    else:  # axes is an attribute before opset 18
        maxima = step("ReduceMax", [gathered], "maxima", keepdims=0, axes=[3])
    made.append(ctx.make(node, "Reshape", [maxima, out_shape], [values]))
    winner = step("ArgMax", [gathered], "winner", axis=3, keepdims=1)  # [N, C, windows, 1], first maximum
    positions = step("Expand", [int64("positions", table),
                                step("Shape", [gathered], "gathered_shape")], "positions")
    flat = step("GatherElements", [positions, winner], "flat", axis=3)
    index_type = ElementType.from_ir_name(op.index_element_type)
    if index_type is not ElementType.I64:
        flat = step("Cast", [flat], "flat_cast", to=onnx_type_code(index_type))
    made.append(ctx.make(node, "Reshape", [flat, out_shape], [indices], step="indices"))
    return made
