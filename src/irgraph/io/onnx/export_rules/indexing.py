"""Gathers and scatters: Gather, GatherElements, GatherND, ScatterUpdate, ScatterNDUpdate, ScatterElementsUpdate,
SliceScatter and Unique, their indices as ONNX takes them (int64, or the int32 some ops also accept).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import (
    cast,
    constant_axis,
    input_rank,
    int64_input,
    onnx_type_code,
)
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.movement.gather import Gather, Gather7, Gather8
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND, GatherND8
from irgraph.ops.movement.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12
from irgraph.ops.movement.scatter_nd_update import ScatterNDUpdate3, ScatterNDUpdate15
from irgraph.ops.movement.scatter_update import ScatterUpdate
from irgraph.ops.movement.slice import Slice, python_slice
from irgraph.ops.movement.slice_scatter import SliceScatter
from irgraph.ops.movement.unique import Unique
from irgraph.ops.op import normalize_axis


@exports(Gather, Gather7, Gather8)
def gather(node: Node, op: Any, ctx: ExportContext) -> list:
    """Gather along a constant axis. With batch_dims b, GatherND(batch_dims=b) on the indices with a
    trailing unit dim picks the same slices once the axis is moved to position b (a Transpose of the
    data), and a Transpose of the result puts the indices' dims back where Gather puts them."""
    axis = constant_axis(ctx, node, 2)
    data, indices = ctx.inputs(node)[:2]
    batch_dims = getattr(op, "batch_dims", 0)
    made: list = []
    if not batch_dims:
        indices = _indices(ctx, node, 1, made, int32=True)
        return [*made, ctx.make(node, "Gather", [data, indices], ctx.outputs(node), axis=axis)]
    rank, index_rank = input_rank(ctx, node, 0), input_rank(ctx, node, 1)
    axis = normalize_axis(axis, rank)
    batch = batch_dims + index_rank if batch_dims < 0 else batch_dims
    indices = int64_input(ctx, node, 1, "indices", made)  # GatherND takes int64 indices only
    if axis != batch:
        order = [*range(batch), axis, *(a for a in range(batch, rank) if a != axis)]
        moved = ctx.temp(node, "moved")
        made.append(ctx.make(node, "Transpose", [data], [moved], step="moved", perm=order))
        data = moved
    last = ctx.initializer(node, "last_axis", np.asarray([-1], np.int64))
    tuples = ctx.temp(node, "tuples")
    made.append(ctx.make(node, "Unsqueeze", [indices, last], [tuples], step="tuples"))
    output = ctx.outputs(node)[0]
    if axis == batch:
        made.append(ctx.make(node, "GatherND", [data, tuples], [output], batch_dims=batch))
        return made
    # GatherND gives batch + index dims + data[batch:axis] + data[axis+1:]; Gather puts the index dims at axis.
    gathered = ctx.temp(node, "gathered")
    made.append(ctx.make(node, "GatherND", [data, tuples], [gathered], step="gathered", batch_dims=batch))
    picked = index_rank - batch
    between = axis - batch
    order = [*range(batch), *(batch + picked + i for i in range(between)), *(batch + i for i in range(picked)),
             *range(batch + picked + between, rank - 1 + picked)]
    made.append(ctx.make(node, "Transpose", [gathered], [output], perm=order))
    return made


@exports(GatherElements)
def gather_elements(node: Node, op: GatherElements, ctx: ExportContext) -> list:
    """GatherElements with the same axis."""
    made: list = []
    indices = _indices(ctx, node, 1, made, int32=True)
    return [*made, ctx.make(node, "GatherElements", [ctx.inputs(node)[0], indices], ctx.outputs(node), axis=op.axis)]


@exports(GatherND, GatherND8)
def gather_nd(node: Node, op: Any, ctx: ExportContext) -> list:
    """GatherND: GatherND-8's batch dims are ONNX's; GatherND-5 merges them, so only batch_dims=0 maps."""
    if isinstance(op, GatherND) and op.batch_dims:
        raise ctx.refuse("GatherND-5 with batch_dims > 0 flattens the batch dims, which ONNX GatherND does not")
    made: list = []
    indices = _indices(ctx, node, 1, made, int32=False)
    return [*made, ctx.make(node, "GatherND", [ctx.inputs(node)[0], indices], ctx.outputs(node),
                            batch_dims=op.batch_dims)]


def _indices(ctx: ExportContext, node: Node, index: int, made: list, *, int32: bool) -> str:
    """Index input ``index`` as ONNX's gathers take it (int64, or int32 where ``int32``): other integer types
    (SSDLite's u32 indices) are cast to int64, which holds every u32 index and the others' values."""
    element_type = ctx.input_type(node, index).element_type
    if element_type is ElementType.I64 or (int32 and element_type is ElementType.I32):
        return ctx.inputs(node)[index]
    return int64_input(ctx, node, index, "indices", made)


_SCATTER_REDUCTIONS = {"none": "none", "sum": "add", "prod": "mul", "min": "min", "max": "max"}
_REDUCTION_OPSET = {"add": 16, "mul": 16, "min": 18, "max": 18}
"""The opset where ScatterND / ScatterElements take each reduction."""


def _reduction(ctx: ExportContext, reduction: str, onnx_op: str) -> dict[str, str]:
    """The ONNX ``reduction`` attribute of an IR scatter reduction, refused where ONNX has none (yet)."""
    if reduction not in _SCATTER_REDUCTIONS:
        raise ctx.refuse(f"reduction {reduction!r} has no ONNX {onnx_op} form")
    name = _SCATTER_REDUCTIONS[reduction]
    if name == "none":
        return {}
    if ctx.opset < _REDUCTION_OPSET[name]:
        raise ctx.refuse(f"ONNX {onnx_op} takes reduction {name!r} from opset {_REDUCTION_OPSET[name]}")
    return {"reduction": name}


@exports(ScatterNDUpdate3, ScatterNDUpdate15)
def scatter_nd_update(node: Node, op: Any, ctx: ExportContext) -> list:
    """ScatterND; ScatterNDUpdate-15's sum/prod/min/max are ONNX's add/mul/min/max reductions."""
    attributes = _reduction(ctx, getattr(op, "reduction", "none"), "ScatterND")
    return [ctx.make(node, "ScatterND", ctx.inputs(node)[:3], ctx.outputs(node), **attributes)]


@exports(ScatterElementsUpdate3, ScatterElementsUpdate12)
def scatter_elements_update(node: Node, op: Any, ctx: ExportContext) -> list:
    """ScatterElements along a constant axis; reductions as ONNX names them (mean and use_init_val=false refused)."""
    axis = constant_axis(ctx, node, 3)
    reduction = getattr(op, "reduction", "none")
    attributes = _reduction(ctx, reduction, "ScatterElements")
    if reduction != "none" and not getattr(op, "use_init_val", True):
        raise ctx.refuse("use_init_val=false has no ONNX ScatterElements form")
    return [ctx.make(node, "ScatterElements", ctx.inputs(node)[:3], ctx.outputs(node), axis=axis, **attributes)]


# ------------------------------------------------------------------------------------ slicing
@exports(ScatterUpdate)
def scatter_update(node: Node, op: ScatterUpdate, ctx: ExportContext) -> list:
    """ScatterND: the axis moved to the front of data and updates (Transposes), the indices given a
    trailing unit dim, and the result's axis moved back."""
    axis = constant_axis(ctx, node, 3)
    rank, index_rank = input_rank(ctx, node, 0), input_rank(ctx, node, 1)
    axis = normalize_axis(axis, rank)
    data, _, updates = ctx.inputs(node)[:3]
    made: list = []
    indices = int64_input(ctx, node, 1, "indices", made)  # ScatterND takes int64 indices only
    last = ctx.initializer(node, "last_axis", np.asarray([-1], np.int64))
    tuples = ctx.temp(node, "tuples")
    made.append(ctx.make(node, "Unsqueeze", [indices, last], [tuples], step="tuples"))
    output = ctx.outputs(node)[0]
    if axis == 0:
        made.append(ctx.make(node, "ScatterND", [data, tuples, updates], [output]))
        return made
    data_order = [axis, *(a for a in range(rank) if a != axis)]
    # updates: data[:axis] + indices + data[axis+1:] -> indices + data[:axis] + data[axis+1:]
    update_order = [*range(axis, axis + index_rank), *range(axis), *range(axis + index_rank, rank - 1 + index_rank)]
    moved_data, moved_updates, scattered = (ctx.temp(node, s) for s in ("moved_data", "moved_updates", "scattered"))
    back = [data_order.index(a) for a in range(rank)]
    made += [ctx.make(node, "Transpose", [data], [moved_data], step="moved_data", perm=data_order),
             ctx.make(node, "Transpose", [updates], [moved_updates], step="moved_updates", perm=update_order),
             ctx.make(node, "ScatterND", [moved_data, tuples, moved_updates], [scattered], step="scattered"),
             ctx.make(node, "Transpose", [scattered], [output], perm=back)]
    return made



@exports(SliceScatter)
def slice_scatter(node: Node, op: SliceScatter, ctx: ExportContext) -> list:
    """ScatterElements on the flattened data at the flat indices of the sliced region (computed at export from
    the static shape and the constant start, stop, step and axes), reshaped back: values are copied, exactly."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or not shape.is_static:
        raise ctx.refuse(f"its data has the shape {shape}; the flat indices of the region need a static one")
    vectors = []
    for index, what in ((2, "start"), (3, "stop"), (4, "step"), (5, "axes")):
        if index < len(ctx.inputs(node)) and ctx.inputs(node)[index]:
            value = ctx.constant(node, index)
            if value is None:
                raise ctx.refuse(f"its {what} (input {index}) must come straight from a Const to export it")
            vectors.append(np.asarray(value))
    dims = tuple(d.value for d in shape)
    positions = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
    try:
        plan = Slice().plan(len(dims), [positions, *vectors])
    except OpError as err:
        raise ctx.refuse(err.message) from None
    key = tuple(python_slice(dims[i], *plan[i]) if i in plan else slice(None) for i in range(len(dims)))
    indices = positions[key].reshape(-1)
    data, updates = ctx.inputs(node)[:2]
    flat, flat_updates, scattered = (ctx.temp(node, s) for s in ("flat", "flat_updates", "scattered"))
    minus_one = ctx.initializer(node, "flat_shape", np.asarray([-1], np.int64))
    return [ctx.make(node, "Reshape", [data, minus_one], [flat], step="flat"),
            ctx.make(node, "Reshape", [updates, minus_one], [flat_updates], step="flat_updates"),
            ctx.make(node, "ScatterElements", [flat, ctx.initializer(node, "indices", indices), flat_updates],
                     [scattered], step="scattered", axis=0),
            ctx.make(node, "Reshape", [scattered, ctx.initializer(node, "shape", np.asarray(dims, np.int64))],
                     ctx.outputs(node))]


@exports(Unique)
def unique(node: Node, op: Unique, ctx: ExportContext) -> list:
    """ONNX Unique (sorted ascending or by first occurrence, flattened without an axis: both as OpenVINO);
    its int64 indices, inverse indices and counts cast to the asked types. Integers other than i8 and i64
    go through i64 (onnxruntime 1.31.1 has no Unique kernel for them; the order of integers is kept)."""
    names = ctx.inputs(node)
    attributes: dict[str, Any] = {"sorted": int(op.sorted)}
    if len(names) > 1 and names[1]:
        attributes["axis"] = constant_axis(ctx, node, 1)
    outputs = ctx.outputs(node)
    wanted_types = [op.index_element_type, op.index_element_type, op.count_element_type]
    made: list = []
    produced = [outputs[0]]
    casts = []
    for index, element_type in enumerate(wanted_types, start=1):
        if index >= len(outputs):
            produced.append(ctx.temp(node, f"unused{index}"))
        elif element_type is ElementType.I64:
            produced.append(outputs[index])
        else:
            wide = ctx.temp(node, f"output{index}_i64")
            produced.append(wide)
            casts.append(ctx.make(node, "Cast", [wide], [outputs[index]], step=f"output{index}",
                                  to=onnx_type_code(element_type)))
    data_type = ctx.input_type(node, 0).element_type
    data = names[0]
    if data_type.is_integral and data_type not in (ElementType.I64, ElementType.I8):
        data = cast(ctx, node, data, ElementType.I64, "data_i64", made)
        wide_values = ctx.temp(node, "unique_i64")
        casts.insert(0, ctx.make(node, "Cast", [wide_values], [produced[0]], step="unique",
                                 to=onnx_type_code(data_type)))
        produced[0] = wide_values
    made.append(ctx.make(node, "Unique", [data], produced, **attributes))
    return made + casts
