"""Shape and data-movement ops: Reshape, Squeeze, Unsqueeze, ShapeOf, Concat, Split, Transpose, Gather,
Slice, StridedSlice, Tile, Pad, Broadcast, ShuffleChannels, DepthToSpace, Reverse, ...

ONNX takes shapes, axes, pads and repeats as int64 input tensors (from opset 13 for Split, Squeeze
and Unsqueeze): a Const becomes an int64 initializer, a computed tensor is cast to int64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Shape
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import (
    Pattern,
    cast,
    constant_ints,
    input_rank,
    int64_input,
    onnx_type_code,
)
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.movement.batch_to_space import BatchToSpace
from irgraph.ops.movement.broadcast import Broadcast, Broadcast3
from irgraph.ops.movement.col2im import Col2Im
from irgraph.ops.movement.concat import Concat
from irgraph.ops.movement.depth_to_space import DepthToSpace
from irgraph.ops.movement.extract_image_patches import ExtractImagePatches
from irgraph.ops.movement.gather import Gather, Gather7, Gather8
from irgraph.ops.movement.gather_elements import GatherElements
from irgraph.ops.movement.gather_nd import GatherND, GatherND8
from irgraph.ops.movement.pad import Pad, Pad12
from irgraph.ops.movement.reverse import Reverse
from irgraph.ops.movement.reverse_sequence import ReverseSequence
from irgraph.ops.movement.roll import Roll
from irgraph.ops.movement.scatter_elements_update import ScatterElementsUpdate3, ScatterElementsUpdate12
from irgraph.ops.movement.scatter_nd_update import ScatterNDUpdate3, ScatterNDUpdate15
from irgraph.ops.movement.scatter_update import ScatterUpdate
from irgraph.ops.movement.shuffle_channels import ShuffleChannels
from irgraph.ops.movement.slice import Slice, python_slice
from irgraph.ops.movement.slice_scatter import SliceScatter
from irgraph.ops.movement.space_to_batch import SpaceToBatch
from irgraph.ops.movement.space_to_depth import SpaceToDepth
from irgraph.ops.movement.split import Split
from irgraph.ops.movement.strided_slice import StridedSlice
from irgraph.ops.movement.tile import Tile
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.movement.unique import Unique
from irgraph.ops.movement.variadic_split import VariadicSplit, resolve_lengths
from irgraph.ops.op import normalize_axis
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf1, ShapeOf3
from irgraph.ops.shape.squeeze import Squeeze, Squeeze15
from irgraph.ops.shape.unsqueeze import Unsqueeze

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


def _axis(ctx: ExportContext, node: Node, index: int, rank_of: int = 0) -> int:
    """A one-element constant axis input, checked against the rank of input ``rank_of`` when known."""
    value = ctx.constant(node, index)
    if value is None or np.size(value) != 1:
        raise ctx.refuse(f"{node.type_name}'s axis must come straight from a one-element Const to export it (ONNX "
                         "takes the axis as an attribute)")
    axis = int(np.asarray(value).reshape(-1)[0])
    shape = ctx.input_type(node, rank_of).shape
    if not shape.rank_is_dynamic:
        try:
            normalize_axis(axis, shape.rank)
        except OpError as err:
            raise ctx.refuse(err.message) from None
    return axis


# ------------------------------------------------------------------------------------ shape ops
@exports(Reshape)
def reshape(node: Node, op: Reshape, ctx: ExportContext) -> list:
    """Reshape; special_zero is ONNX's default (0 copies the input dim), its absence allowzero=1 (opset 14)."""
    data = ctx.inputs(node)[0]
    made: list = []
    shape = int64_input(ctx, node, 1, "shape", made, scalar=False)
    attributes: dict[str, Any] = {}
    if not op.special_zero:
        value = ctx.constant(node, 1)
        if value is None or 0 in np.asarray(value):
            if ctx.opset < 14:
                raise ctx.refuse("special_zero=false with a 0 (or a computed shape) needs ONNX allowzero "
                                 "(opset 14)")
            attributes["allowzero"] = 1
    return [*made, ctx.make(node, "Reshape", [data, shape], ctx.outputs(node), **attributes)]


@exports(Squeeze, Squeeze15)
def squeeze(node: Node, op: Any, ctx: ExportContext) -> list:
    """Squeeze with int64 axes; Squeeze-15's allow_axis_skip drops axes whose static dim is not 1."""
    names = ctx.inputs(node)
    if len(names) < 2 or not names[1]:
        return [ctx.make(node, "Squeeze", [names[0]], ctx.outputs(node))]
    if getattr(op, "allow_axis_skip", False):
        shape = ctx.input_type(node, 0).shape
        axes = constant_ints(ctx, node, 1, "axes")
        if shape.rank_is_dynamic:
            raise ctx.refuse("allow_axis_skip on data of dynamic rank has no ONNX form")
        kept = []
        for axis in axes:
            dim = shape[normalize_axis(axis, shape.rank)]
            if not dim.is_static:
                raise ctx.refuse(f"allow_axis_skip on the dynamic dim {dim} depends on the run")
            if dim.value == 1:
                kept.append(axis)
        axes_name = ctx.initializer(node, "axes", np.asarray(kept, np.int64))
        return [ctx.make(node, "Squeeze", [names[0], axes_name], ctx.outputs(node))]
    made: list = []
    axes_name = int64_input(ctx, node, 1, "axes", made, scalar=False)
    return [*made, ctx.make(node, "Squeeze", [names[0], axes_name], ctx.outputs(node))]


@exports(Unsqueeze)
def unsqueeze(node: Node, op: Unsqueeze, ctx: ExportContext) -> list:
    """Unsqueeze with int64 axes (a scalar axis becomes a 1-element list)."""
    made: list = []
    axes = int64_input(ctx, node, 1, "axes", made, scalar=False)
    return [*made, ctx.make(node, "Unsqueeze", [ctx.inputs(node)[0], axes], ctx.outputs(node))]


@exports(ShapeOf1, ShapeOf3)
def shape_of(node: Node, op: Any, ctx: ExportContext) -> list:
    """Shape (int64), cast to i32 when ShapeOf-3 asks for it."""
    output_type = ctx.output_type(node, 0).element_type
    if output_type is ElementType.I64:
        return [ctx.make(node, "Shape", ctx.inputs(node), ctx.outputs(node))]
    shape = ctx.temp(node, "shape")
    return [ctx.make(node, "Shape", ctx.inputs(node), [shape], step="shape"),
            ctx.make(node, "Cast", [shape], ctx.outputs(node), to=onnx_type_code(output_type))]


# ------------------------------------------------------------------------------------ concat, split
@exports(Concat)
def concat(node: Node, op: Concat, ctx: ExportContext) -> list:
    """Concat with the same axis."""
    return [ctx.make(node, "Concat", ctx.inputs(node), ctx.outputs(node), axis=op.axis)]


@exports(Split)
def split(node: Node, op: Split, ctx: ExportContext) -> list:
    """Split into equal parts: num_outputs from opset 18, equal parts by the output count before."""
    axis = _axis(ctx, node, 1)
    attributes: dict[str, Any] = {"num_outputs": op.num_splits} if ctx.opset >= 18 else {}
    return [ctx.make(node, "Split", [ctx.inputs(node)[0]], ctx.outputs(node), axis=axis, **attributes)]


@exports(VariadicSplit)
def variadic_split(node: Node, op: VariadicSplit, ctx: ExportContext) -> list:
    """Split with an int64 split input; a -1 length is resolved (ONNX Split's lengths are >= 0): on a static dim
    at export when the lengths are constant, else in the graph (computed lengths of any integer type are cast)."""
    axis = _axis(ctx, node, 1)
    names = ctx.inputs(node)
    value = ctx.static_value(node, 2)
    outputs = ctx.outputs(node)
    if value is None:
        return _computed_split(node, ctx, axis)
    lengths = [int(v) for v in np.asarray(value).reshape(-1)]
    if -1 in lengths:
        shape = ctx.input_type(node, 0).shape
        dim = None if shape.rank_is_dynamic else shape[axis]
        if dim is None or not dim.is_static:
            return _computed_split(node, ctx, axis)
        try:
            resolved = [int(v) for v in resolve_lengths(lengths, dim)]  # type: ignore[arg-type]
        except OpError as err:
            raise ctx.refuse(err.message) from None
        ctx.explain(f"layer {node.id} {node.name!r}: split_lengths {lengths} resolved to {resolved} "
                    f"on the static dim {dim}")
        lengths = resolved
    extra = [ctx.temp(node, f"unread{i}") for i in range(len(outputs), len(lengths))]
    constant = ctx.constant(node, 2)
    same = constant is not None and np.asarray(constant).dtype == np.int64 and np.ndim(constant) == 1 and \
        list(np.asarray(constant)) == lengths
    split_input = names[2] if same else ctx.initializer(node, "split", np.asarray(lengths, np.int64))
    return [ctx.make(node, "Split", [names[0], split_input], [*outputs, *extra], axis=axis)]


def _computed_split(node: Node, ctx: ExportContext, axis: int) -> list:
    """Split by lengths known only at run time (or holding -1 on a dynamic dim): cast to int64, and a -1 replaced
    by what the others leave of the axis dim, ``dim - (sum + 1)``, as OpenVINO resolves it."""
    pattern = Pattern(ctx, node)
    lengths = int64_input(ctx, node, 2, "split", pattern.made, scalar=False)
    dim = _axis_dim(pattern, ctx.inputs(node)[0], axis, ctx.input_type(node, 0).shape)
    total = pattern.step("ReduceSum", [lengths], "total", keepdims=1)
    used = pattern.step("Add", [total, pattern.int64("one", [1])], "used")
    rest = pattern.step("Sub", [dim, used], "rest")
    is_rest = pattern.step("Equal", [lengths, pattern.int64("minus_one", [-1])], "is_rest")
    resolved = pattern.step("Where", [is_rest, rest, lengths], "resolved")
    ctx.explain(f"layer {node.id} {node.name!r} VariadicSplit-1: its split_lengths are computed in the run; the "
                "ONNX graph casts them to int64 and resolves a -1 (ONNX Split takes int64 lengths >= 0)")
    pattern.made.append(ctx.make(node, "Split", [ctx.inputs(node)[0], resolved], ctx.outputs(node), axis=axis))
    return pattern.made


def _axis_dim(pattern: Pattern, data: str, axis: int, shape: Shape) -> str:
    """A 1-element int64 tensor holding dim ``axis`` of ``data``: an initializer when it is static."""
    if not shape.rank_is_dynamic:
        axis = normalize_axis(axis, shape.rank)
    if not shape.rank_is_dynamic and shape[axis].is_static:
        return pattern.int64(f"dim{axis}", [shape[axis].value])
    if pattern.ctx.opset >= 15:  # Shape-15 slices the shape itself
        end = {} if axis == -1 else {"end": axis + 1}
        return pattern.step("Shape", [data], f"dim{axis}", start=axis, **end)
    whole = pattern.step("Shape", [data], "shape")
    return pattern.step("Gather", [whole, pattern.int64(f"axis{axis}", [axis])], f"dim{axis}", axis=0)


# ------------------------------------------------------------------------------------ transpose & co
@exports(Transpose)
def transpose(node: Node, op: Transpose, ctx: ExportContext) -> list:
    """Transpose with a constant order (an empty order reverses the axes)."""
    order = constant_ints(ctx, node, 1, "input_order")
    if not order:
        order = list(range(input_rank(ctx, node, 0)))[::-1]
    rank = len(order)
    return [ctx.make(node, "Transpose", [ctx.inputs(node)[0]], ctx.outputs(node),
                     perm=[normalize_axis(a, rank) for a in order])]


@exports(ShuffleChannels)
def shuffle_channels(node: Node, op: ShuffleChannels, ctx: ExportContext) -> list:
    """Reshape to (outer, group, size / group, inner), swap dims 1 and 2, reshape back to the input's shape."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic:
        raise ctx.refuse("ShuffleChannels on data of dynamic rank")
    axis = normalize_axis(op.axis, shape.rank)
    dims = list(shape)
    if not dims[axis].is_static:
        raise ctx.refuse(f"ShuffleChannels over the dynamic dim {dims[axis]}")
    outer = [d.value for d in dims[:axis]] if all(d.is_static for d in dims[:axis]) else None
    inner = [d.value for d in dims[axis + 1:]] if all(d.is_static for d in dims[axis + 1:]) else None
    if outer is None and inner is None:
        raise ctx.refuse("ShuffleChannels needs static dims on one side of its axis")
    size = dims[axis].value
    grouped = [-1 if outer is None else int(np.prod(outer)), op.group, size // op.group,
               -1 if inner is None else int(np.prod(inner))]
    (x,) = ctx.inputs(node)
    split_shape = ctx.initializer(node, "grouped_shape", np.asarray(grouped, np.int64))
    grouped_name, swapped, original = ctx.temp(node, "grouped"), ctx.temp(node, "swapped"), ctx.temp(node, "shape")
    return [
        ctx.make(node, "Reshape", [x, split_shape], [grouped_name], step="grouped"),
        ctx.make(node, "Transpose", [grouped_name], [swapped], step="swapped", perm=[0, 2, 1, 3]),
        ctx.make(node, "Shape", [x], [original], step="shape"),
        ctx.make(node, "Reshape", [swapped, original], ctx.outputs(node)),
    ]


@exports(DepthToSpace)
def depth_to_space(node: Node, op: DepthToSpace, ctx: ExportContext) -> list:
    """DepthToSpace of 4-D data: blocks_first is ONNX's DCR mode, depth_first its CRD."""
    if input_rank(ctx, node, 0) != 4:
        raise ctx.refuse("ONNX DepthToSpace takes 4-D data only")
    mode = "DCR" if op.mode == "blocks_first" else "CRD"
    return [ctx.make(node, "DepthToSpace", ctx.inputs(node), ctx.outputs(node), blocksize=op.block_size, mode=mode)]


@exports(SpaceToDepth)
def space_to_depth(node: Node, op: SpaceToDepth, ctx: ExportContext) -> list:
    """SpaceToDepth of 4-D data in blocks_first mode (ONNX's only order)."""
    if input_rank(ctx, node, 0) != 4:
        raise ctx.refuse("ONNX SpaceToDepth takes 4-D data only")
    if op.mode != "blocks_first":
        raise ctx.refuse("SpaceToDepth depth_first has no ONNX form (ONNX orders the blocks first)")
    return [ctx.make(node, "SpaceToDepth", ctx.inputs(node), ctx.outputs(node), blocksize=op.block_size)]


# ------------------------------------------------------------------------------------ gathers, scatters
@exports(Gather, Gather7, Gather8)
def gather(node: Node, op: Any, ctx: ExportContext) -> list:
    """Gather along a constant axis. With batch_dims b, GatherND(batch_dims=b) on the indices with a
    trailing unit dim picks the same slices once the axis is moved to position b (a Transpose of the
    data), and a Transpose of the result puts the indices' dims back where Gather puts them."""
    axis = _axis(ctx, node, 2)
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
    axis = _axis(ctx, node, 3)
    reduction = getattr(op, "reduction", "none")
    attributes = _reduction(ctx, reduction, "ScatterElements")
    if reduction != "none" and not getattr(op, "use_init_val", True):
        raise ctx.refuse("use_init_val=false has no ONNX ScatterElements form")
    return [ctx.make(node, "ScatterElements", ctx.inputs(node)[:3], ctx.outputs(node), axis=axis, **attributes)]


# ------------------------------------------------------------------------------------ slicing
@exports(Slice)
def slice_(node: Node, op: Slice, ctx: ExportContext) -> list:
    """Slice-8 (data, start, stop, step, axes) is ONNX Slice (data, starts, ends, axes, steps) in int64."""
    names = ctx.inputs(node)
    made: list = []
    starts, ends, steps = (int64_input(ctx, node, i, s, made, scalar=False) for i, s in ((1, "starts"), (2, "ends"),
                                                                                     (3, "steps")))
    inputs = [names[0], starts, ends]
    inputs.append(int64_input(ctx, node, 4, "axes", made, scalar=False) if len(names) > 4 and names[4] else "")
    inputs.append(steps)
    return [*made, ctx.make(node, "Slice", inputs, ctx.outputs(node))]


@exports(StridedSlice)
def strided_slice(node: Node, op: StridedSlice, ctx: ExportContext) -> list:
    """Slice over the addressed axes (masks resolved into starts/ends), then a Squeeze of the shrunk axes
    and an Unsqueeze of the new ones; begin, end and strides must be constant."""
    rank = input_rank(ctx, node, 0)
    begin = constant_ints(ctx, node, 1, "begin")
    end = constant_ints(ctx, node, 2, "end")
    names = ctx.inputs(node)
    strides = constant_ints(ctx, node, 3, "strides") if len(names) > 3 and names[3] else [1] * len(begin)

    def mask(values: tuple[int, ...], i: int) -> bool:
        return i < len(values) and values[i] != 0

    consuming = sum(1 for i in range(len(begin)) if not mask(op.new_axis_mask, i) and not mask(op.ellipsis_mask, i))
    axes, starts, ends, steps, shrunk, new_axes = [], [], [], [], [], []
    in_axis = out_axis = 0
    for i in range(len(begin)):
        if mask(op.ellipsis_mask, i):
            covered = rank - consuming
            in_axis += covered
            out_axis += covered
        elif mask(op.new_axis_mask, i):
            new_axes.append(out_axis)
            out_axis += 1
        elif mask(op.shrink_axis_mask, i):
            axes.append(in_axis)
            starts.append(begin[i])
            ends.append(_INT64_MAX if begin[i] == -1 else begin[i] + 1)
            steps.append(1)
            shrunk.append(in_axis)
            in_axis += 1
        else:
            stride = strides[i]
            axes.append(in_axis)
            starts.append((_INT64_MAX if stride < 0 else 0) if mask(op.begin_mask, i) else begin[i])
            ends.append((_INT64_MIN if stride < 0 else _INT64_MAX) if mask(op.end_mask, i) else end[i])
            steps.append(stride)
            in_axis += 1
            out_axis += 1
    made: list = []
    current = names[0]
    final = ctx.outputs(node)[0]
    stages = [bool(axes), bool(shrunk), bool(new_axes)]
    if not any(stages):
        return [ctx.make(node, "Identity", [current], [final])]

    def target(stage: int) -> str:
        return final if not any(stages[stage + 1:]) else ctx.temp(node, ("sliced", "squeezed", "unsqueezed")[stage])

    if axes:
        out = target(0)
        inputs = [current, *(ctx.initializer(node, step, np.asarray(v, np.int64)) for step, v in
                             (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps)))]
        made.append(ctx.make(node, "Slice", inputs, [out], **({} if out == final else {"step": "slice"})))
        current = out
    if shrunk:
        out = target(1)
        axes_name = ctx.initializer(node, "shrink_axes", np.asarray(shrunk, np.int64))
        made.append(ctx.make(node, "Squeeze", [current, axes_name], [out], **({} if out == final else
                                                                              {"step": "squeeze"})))
        current = out
    if new_axes:
        axes_name = ctx.initializer(node, "new_axes", np.asarray(new_axes, np.int64))
        made.append(ctx.make(node, "Unsqueeze", [current, axes_name], [final]))
    return made


@exports(Reverse)
def reverse(node: Node, op: Reverse, ctx: ExportContext) -> list:
    """Slice with step -1 over the reversed axes (mode index: the axes; mode mask: where the mask is true)."""
    value = ctx.constant(node, 1)
    if value is None:
        raise ctx.refuse("Reverse's axes must come straight from a Const")
    rank = input_rank(ctx, node, 0)
    flat = np.asarray(value).reshape(-1)
    axes = [int(i) for i in np.flatnonzero(flat)] if op.mode == "mask" else [normalize_axis(int(a), rank)
                                                                           for a in flat]
    if not axes:
        return [ctx.make(node, "Identity", [ctx.inputs(node)[0]], ctx.outputs(node))]
    count = len(axes)
    inputs = [ctx.inputs(node)[0]] + [ctx.initializer(node, step, np.asarray(v, np.int64)) for step, v in (
        ("starts", [-1] * count), ("ends", [_INT64_MIN] * count), ("axes", axes), ("steps", [-1] * count))]
    return [ctx.make(node, "Slice", inputs, ctx.outputs(node))]


# ------------------------------------------------------------------------------------ tile, pad, broadcast
@exports(Tile)
def tile(node: Node, op: Tile, ctx: ExportContext) -> list:
    """Tile: ONNX wants one repeat per dim, so shorter repeats get leading 1s and longer ones
    unsqueeze the data first (as OpenVINO aligns them); computed repeats (Whisper's) are cast to int64 and
    padded with 1s in the graph."""
    rank = input_rank(ctx, node, 0)
    value = ctx.static_value(node, 1)
    data = ctx.inputs(node)[0]
    made: list = []
    if value is None:
        repeats_shape = ctx.input_type(node, 1).shape
        count = None if repeats_shape.rank_is_dynamic or repeats_shape.rank != 1 else repeats_shape[0]
        if count is None or not count.is_static:
            raise ctx.refuse(f"its computed repeats have the shape {repeats_shape}: ONNX Tile takes one repeat per "
                             "data dim (its repeats input is 1-D of the data's rank), and how many 1s align these "
                             "to the data is unknown at export")
        repeats = int64_input(ctx, node, 1, "repeats", made, scalar=False)
        if count.value < rank:
            ones = ctx.initializer(node, "lead_ones", np.ones(rank - count.value, np.int64))
            padded = ctx.temp(node, "repeats_padded")
            made.append(ctx.make(node, "Concat", [ones, repeats], [padded], step="repeats_padded", axis=0))
            repeats = padded
        data = _lifted(ctx, node, data, count.value - rank, made)
        return [*made, ctx.make(node, "Tile", [data, repeats], ctx.outputs(node))]
    counts = [int(v) for v in np.asarray(value).reshape(-1)]
    data = _lifted(ctx, node, data, len(counts) - rank, made)
    counts = [1] * (rank - len(counts)) + counts
    made.append(ctx.make(node, "Tile", [data, ctx.initializer(node, "repeats", np.asarray(counts, np.int64))],
                         ctx.outputs(node)))
    return made


def _lifted(ctx: ExportContext, node: Node, data: str, count: int, made: list) -> str:
    """``data`` with ``count`` leading unit dims (none when ``count`` <= 0)."""
    if count <= 0:
        return data
    axes = ctx.initializer(node, "lead_axes", np.arange(count, dtype=np.int64))
    lifted = ctx.temp(node, "lifted")
    made.append(ctx.make(node, "Unsqueeze", [data, axes], [lifted], step="lifted"))
    return lifted


_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect"}


@exports(Pad, Pad12)
def pad(node: Node, op: Any, ctx: ExportContext) -> list:
    """Pad: begins and ends joined into ONNX's one pads input; symmetric has no ONNX mode."""
    if op.pad_mode not in _PAD_MODES:
        raise ctx.refuse(f"pad_mode {op.pad_mode} has no ONNX Pad mode (ONNX has constant, reflect, edge, wrap)")
    names = ctx.inputs(node)
    begin, end = ctx.constant(node, 1), ctx.constant(node, 2)
    made: list = []
    if begin is not None and end is not None:
        pads = ctx.initializer(node, "pads", np.concatenate([np.asarray(begin).reshape(-1),
                                                             np.asarray(end).reshape(-1)]).astype(np.int64))
    else:
        pads = ctx.temp(node, "pads")
        begins = int64_input(ctx, node, 1, "begin", made, scalar=False)
        ends = int64_input(ctx, node, 2, "end", made, scalar=False)
        made.append(ctx.make(node, "Concat", [begins, ends], [pads], step="pads", axis=0))
    inputs = [names[0], pads]
    if op.pad_mode == "constant" and len(names) > 3 and names[3]:
        inputs.append(names[3])
    made.append(ctx.make(node, "Pad", inputs, ctx.outputs(node), mode=_PAD_MODES[op.pad_mode]))
    return made


@exports(Broadcast, Broadcast3)
def broadcast(node: Node, op: Any, ctx: ExportContext) -> list:
    """Expand to the target shape (numpy and bidirectional are its rules); explicit first unsqueezes the
    data's dims to their axes_mapping places."""
    names = ctx.inputs(node)
    data = names[0]
    made: list = []
    target = int64_input(ctx, node, 1, "target_shape", made, scalar=False)
    if op.mode == "explicit":
        mapping = constant_ints(ctx, node, 2, "axes_mapping")
        shape = ctx.input_type(node, 1).shape
        if shape.rank_is_dynamic or not shape[0].is_static:
            raise ctx.refuse("explicit Broadcast needs a target shape of known length")
        missing = [a for a in range(shape[0].value) if a not in mapping]
        if missing:
            placed = ctx.temp(node, "placed")
            made.append(ctx.make(node, "Unsqueeze", [data, ctx.initializer(node, "axes", np.asarray(missing,
                                                                                                   np.int64))],
                                 [placed], step="placed"))
            data = placed
    elif op.mode not in ("numpy", "bidirectional"):
        raise ctx.refuse(f"Broadcast mode {op.mode} has no ONNX form")
    made.append(ctx.make(node, "Expand", [data, target], ctx.outputs(node)))
    return made




@exports(ScatterUpdate)
def scatter_update(node: Node, op: ScatterUpdate, ctx: ExportContext) -> list:
    """ScatterND: the axis moved to the front of data and updates (Transposes), the indices given a
    trailing unit dim, and the result's axis moved back."""
    axis = _axis(ctx, node, 3)
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


@exports(Roll)
def roll(node: Node, op: Roll, ctx: ExportContext) -> list:
    """Per rolled axis: the last shift % dim elements, then the rest (two Slices and a Concat). Constant shifts
    over static dims are reduced at export; over a dynamic dim (Swin's windows) or for computed shifts the
    graph computes shift mod dim (Shape, Mod) and slices there. The axes must be constant: ONNX Concat takes
    its axis as an attribute."""
    rank = input_rank(ctx, node, 0)
    axes = [normalize_axis(a, rank) for a in constant_ints(ctx, node, 2, "axes")]
    value = ctx.static_value(node, 1)
    scalar_shift = len(ctx.input_type(node, 1).shape) == 0 if not ctx.input_type(node, 1).shape.rank_is_dynamic \
        else None
    if value is not None:
        shifts = [int(v) for v in np.asarray(value).reshape(-1)]
        if np.ndim(value) == 0:
            shifts = shifts * len(axes)
        if len(shifts) != len(axes):
            raise ctx.refuse(f"{len(shifts)} shifts for {len(axes)} axes")
    elif scalar_shift is None:
        raise ctx.refuse("its computed shift has a dynamic rank: whether it is one shift for every axis or one "
                         "per axis is unknown at export")
    shape = ctx.input_type(node, 0).shape
    positions: dict[int, list[int]] = {}
    for position, axis in enumerate(axes):
        positions.setdefault(axis, []).append(position)
    pattern = Pattern(ctx, node)
    computed = None if value is not None else int64_input(ctx, node, 1, "shift", pattern.made, scalar=False)
    moves: list[tuple[int, str | int]] = []
    for axis, where in sorted(positions.items()):
        dim = shape[axis]
        if value is not None and dim.is_static:
            total = sum(shifts[p] for p in where)
            if dim.value and total % dim.value:
                moves.append((axis, dim.value - total % dim.value))
            continue
        moves.append((axis, _roll_cut(pattern, axis, where, shifts if value is not None else None, computed,
                                      bool(scalar_shift))))
    current, output = ctx.inputs(node)[0], ctx.outputs(node)[0]
    if not moves:
        return [*pattern.made, ctx.make(node, "Identity", [current], [output])]
    for number, (axis, cut) in enumerate(moves):
        step = f"axis{axis}"
        axis_name = pattern.int64(f"{step}_axes", [axis])
        cut_name = pattern.int64(f"{step}_cut", [cut]) if isinstance(cut, int) else cut
        tail = pattern.step("Slice", [current, cut_name, pattern.int64(f"{step}_end", [_INT64_MAX]), axis_name],
                            f"{step}_tail")
        head = pattern.step("Slice", [current, pattern.int64(f"{step}_start", [0]), cut_name, axis_name],
                            f"{step}_head")
        if number == len(moves) - 1:
            pattern.made.append(ctx.make(node, "Concat", [tail, head], [output], axis=axis))
        else:
            current = pattern.step("Concat", [tail, head], step, axis=axis)
    return pattern.made


def _roll_cut(pattern: Pattern, axis: int, where: list[int], shifts: list[int] | None, computed: str | None,
              scalar_shift: bool) -> str:
    """The index where Roll's axis ``axis`` is cut, computed in the graph: dim - (shift mod dim), the shift
    summed over the ``where`` positions of the axis (a constant, or gathered from the ``computed`` shifts)."""
    step = f"axis{axis}"
    if shifts is not None:
        shift = pattern.int64(f"{step}_shift", [sum(shifts[p] for p in where)])
    elif scalar_shift:
        shift = pattern.step("Mul", [computed, pattern.int64(f"{step}_count", [len(where)])], f"{step}_shift")
    else:
        picked = pattern.step("Gather", [computed, pattern.int64(f"{step}_positions", where)], f"{step}_picked",
                              axis=0)
        shift = pattern.step("ReduceSum", [picked], f"{step}_shift", keepdims=1)
    dim = _axis_dim(pattern, pattern.ctx.inputs(pattern.node)[0], axis, pattern.ctx.input_type(pattern.node, 0).shape)
    divisor = pattern.step("Max", [dim, pattern.int64(f"{step}_one", [1])], f"{step}_divisor")  # dim 0 rolls nothing
    moved = pattern.step("Mod", [shift, divisor], f"{step}_moved", fmod=0)  # in [0, dim): the divisor's sign
    return pattern.step("Sub", [dim, moved], f"{step}_cut")


@exports(Col2Im)
def col2im(node: Node, op: Col2Im, ctx: ExportContext) -> list:
    """Col2Im (opset 18) with the same strides, dilations and pads; unbatched data gets a batch dim
    (an Unsqueeze before, a Squeeze after)."""
    if ctx.opset < 18:
        raise ctx.refuse("ONNX Col2Im arrives in opset 18")
    names = ctx.inputs(node)
    output = ctx.outputs(node)[0]
    attributes: dict[str, Any] = {"strides": list(op.strides), "dilations": list(op.dilations),
                  "pads": [*op.pads_begin, *op.pads_end]}
    made: list = []
    image_shape = int64_input(ctx, node, 1, "image_shape", made, scalar=False)
    block_shape = int64_input(ctx, node, 2, "block_shape", made, scalar=False)
    if input_rank(ctx, node, 0) == 3:
        return [*made, ctx.make(node, "Col2Im", [names[0], image_shape, block_shape], [output], **attributes)]
    first = ctx.initializer(node, "batch_axis", np.asarray([0], np.int64))
    batched, image = ctx.temp(node, "batched"), ctx.temp(node, "image")
    made += [ctx.make(node, "Unsqueeze", [names[0], first], [batched], step="batched"),
             ctx.make(node, "Col2Im", [batched, image_shape, block_shape], [image], step="image", **attributes),
             ctx.make(node, "Squeeze", [image, first], [output])]
    return made


@exports(Unique)
def unique(node: Node, op: Unique, ctx: ExportContext) -> list:
    """ONNX Unique (sorted ascending or by first occurrence, flattened without an axis: both as OpenVINO);
    its int64 indices, inverse indices and counts cast to the asked types. Integers other than i8 and i64
    go through i64 (onnxruntime 1.31.1 has no Unique kernel for them; the order of integers is kept)."""
    names = ctx.inputs(node)
    attributes: dict[str, Any] = {"sorted": int(op.sorted)}
    if len(names) > 1 and names[1]:
        attributes["axis"] = _axis(ctx, node, 1)
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


@exports(ReverseSequence)
def reverse_sequence(node: Node, op: ReverseSequence, ctx: ExportContext) -> list:
    """ReverseSequence with int64 lengths; ONNX's batch and time axes are 0 and 1, so other axes are
    transposed there and back."""
    rank = input_rank(ctx, node, 0)
    try:
        batch_axis, seq_axis = op._axes(rank)
    except OpError as err:
        raise ctx.refuse(err.message) from None
    made: list = []
    lengths = int64_input(ctx, node, 1, "lengths", made, scalar=False)
    data = ctx.inputs(node)[0]
    output = ctx.outputs(node)[0]
    if {batch_axis, seq_axis} == {0, 1}:
        return [*made, ctx.make(node, "ReverseSequence", [data, lengths], [output], batch_axis=batch_axis,
                                time_axis=seq_axis)]
    order = [batch_axis, seq_axis, *(a for a in range(rank) if a not in (batch_axis, seq_axis))]
    moved, reversed_ = ctx.temp(node, "moved"), ctx.temp(node, "reversed")
    return [*made, ctx.make(node, "Transpose", [data], [moved], step="moved", perm=order),
            ctx.make(node, "ReverseSequence", [moved, lengths], [reversed_], step="reversed", batch_axis=0,
                     time_axis=1),
            ctx.make(node, "Transpose", [reversed_], [output], perm=[order.index(a) for a in range(rank)])]


def _block_vectors(ctx: ExportContext, node: Node, op: Any) -> tuple[tuple[int, ...], list[int], list[int], list[int]]:
    """The static data shape and the constant block_shape, pads/crops begin and end of a Space/BatchToSpace."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or not shape.is_static:
        raise ctx.refuse(f"its data has the shape {shape}; the Reshape/Transpose pattern needs a static one")
    vectors = [constant_ints(ctx, node, index, what) for index, what in
               ((1, "block_shape"), (2, "begin vector"), (3, "end vector"))]
    return tuple(d.value for d in shape), *vectors  # type: ignore[return-value]


@exports(SpaceToBatch)
def space_to_batch(node: Node, op: SpaceToBatch, ctx: ExportContext) -> list:
    """Pad with zeros, Reshape each dim into (size / block, block), Transpose the blocks before the batch,
    Reshape: the reference's steps on the static shape."""
    shape, blocks, befores, afters = _block_vectors(ctx, node, op)
    padded = [size + before + after for size, before, after in zip(shape, befores, afters, strict=True)]
    if any(size % block for size, block in zip(padded, blocks, strict=True)):
        raise ctx.refuse(f"padded dims {padded} are not multiples of block_shape {blocks}")
    rank = len(shape)
    data = ctx.inputs(node)[0]
    made: list = []
    if any(befores) or any(afters):
        pads = ctx.initializer(node, "pads", np.asarray([*befores, *afters], np.int64))
        data_padded = ctx.temp(node, "padded")
        made.append(ctx.make(node, "Pad", [data, pads], [data_padded], step="padded", mode="constant"))
        data = data_padded
    split_shape = [part for size, block in zip(padded, blocks, strict=True) for part in (size // block, block)]
    order = [2 * i + 1 for i in range(rank)] + [0] + [2 * i for i in range(1, rank)]
    out_shape = [padded[0] * int(np.prod(blocks[1:]))] + [size // block for size, block in
                                                          zip(padded[1:], blocks[1:], strict=True)]
    split, moved = ctx.temp(node, "split"), ctx.temp(node, "moved")
    return [*made,
            ctx.make(node, "Reshape", [data, ctx.initializer(node, "split_shape", np.asarray(split_shape, np.int64))],
                     [split], step="split"),
            ctx.make(node, "Transpose", [split], [moved], step="moved", perm=order),
            ctx.make(node, "Reshape", [moved, ctx.initializer(node, "shape", np.asarray(out_shape, np.int64))],
                     ctx.outputs(node))]


@exports(BatchToSpace)
def batch_to_space(node: Node, op: BatchToSpace, ctx: ExportContext) -> list:
    """Reshape the batch into (blocks..., N), Transpose each block beside its dim, Reshape, Slice off the crops."""
    shape, blocks, befores, afters = _block_vectors(ctx, node, op)
    rank = len(shape)
    product = int(np.prod(blocks))
    if shape[0] % product:
        raise ctx.refuse(f"the batch {shape[0]} is not a multiple of the blocks' product {product}")
    batch = shape[0] // product
    order = [rank, 0] + [axis for i in range(1, rank) for axis in (rank + i, i)]
    whole = [batch * blocks[0]] + [size * block for size, block in zip(shape[1:], blocks[1:], strict=True)]
    split, moved = ctx.temp(node, "split"), ctx.temp(node, "moved")
    made = [ctx.make(node, "Reshape", [ctx.inputs(node)[0], ctx.initializer(node, "split_shape", np.asarray(
                [*blocks, batch, *shape[1:]], np.int64))], [split], step="split"),
            ctx.make(node, "Transpose", [split], [moved], step="moved", perm=order)]
    ends = [size - after for size, after in zip(whole, afters, strict=True)]
    if not any(befores) and not any(afters):
        return [*made, ctx.make(node, "Reshape", [moved, ctx.initializer(node, "shape", np.asarray(whole, np.int64))],
                                ctx.outputs(node))]
    joined = ctx.temp(node, "joined")
    return [*made,
            ctx.make(node, "Reshape", [moved, ctx.initializer(node, "shape", np.asarray(whole, np.int64))], [joined],
                     step="joined"),
            ctx.make(node, "Slice", [joined, ctx.initializer(node, "starts", np.asarray(befores, np.int64)),
                                     ctx.initializer(node, "ends", np.asarray(ends, np.int64))], ctx.outputs(node))]


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


@exports(ExtractImagePatches)
def extract_image_patches(node: Node, op: ExtractImagePatches, ctx: ExportContext) -> list:
    """irgraph's gather on the static shape: a zero row and column padded at the end, the patch rows and columns
    gathered by index tables worked out at export (out-of-image positions read the zeros), Transpose to
    [N, KH, KW, C, OH, OW] and Reshape: values are copied, exactly."""
    shape = ctx.input_type(node, 0).shape
    if shape.rank_is_dynamic or shape.rank != 4 or not all(d.is_static for d in list(shape)[1:]):
        raise ctx.refuse(f"its data has the shape {shape}; the index tables need static C, H and W")
    _, channels, height, width = (d.value for d in shape)
    if 0 in (height, width):
        return [ctx.make(node, "Identity", ctx.inputs(node), ctx.outputs(node))]
    rows, cols = op._out(height, 0), op._out(width, 1)
    kh, kw = op.sizes
    row_index = (np.arange(rows)[:, None] * op.strides[0] - op._padding(height, 0)
                 + np.arange(kh)[None, :] * op.rates[0])
    col_index = (np.arange(cols)[:, None] * op.strides[1] - op._padding(width, 1)
                 + np.arange(kw)[None, :] * op.rates[1])
    row_index = np.where((row_index >= 0) & (row_index < height), row_index, height).astype(np.int64)
    col_index = np.where((col_index >= 0) & (col_index < width), col_index, width).astype(np.int64)
    padded, by_rows, patches, ordered = (ctx.temp(node, s) for s in ("padded", "rows", "patches", "ordered"))
    zero = ctx.initializer(node, "zero", np.zeros((), ctx.input_type(node, 0).element_type.numpy_dtype))
    return [ctx.make(node, "Pad", [ctx.inputs(node)[0], ctx.initializer(node, "pads", np.asarray(
                [0, 0, 0, 0, 0, 0, 1, 1], np.int64)), zero], [padded], step="padded", mode="constant"),
            ctx.make(node, "Gather", [padded, ctx.initializer(node, "row_index", row_index)], [by_rows], step="rows",
                     axis=2),
            ctx.make(node, "Gather", [by_rows, ctx.initializer(node, "col_index", col_index)], [patches],
                     step="patches", axis=4),
            ctx.make(node, "Transpose", [patches], [ordered], step="ordered", perm=[0, 3, 5, 1, 2, 4]),
            ctx.make(node, "Reshape", [ordered, ctx.initializer(node, "shape", np.asarray(
                [0, channels * kh * kw, rows, cols], np.int64))], ctx.outputs(node))]
