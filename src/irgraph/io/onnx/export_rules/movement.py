"""Shape and data-movement ops: Reshape, Squeeze, Unsqueeze, ShapeOf, Concat, Split, VariadicSplit, Transpose,
Slice, StridedSlice, Reverse, Tile, Pad, Broadcast and Roll (gathers and scatters are in ``indexing``, the block
rearrangements in ``blocks``).

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
    constant_axis,
    constant_ints,
    input_rank,
    int64_input,
    onnx_type_code,
)
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.movement.broadcast import Broadcast, Broadcast3
from irgraph.ops.movement.concat import Concat
from irgraph.ops.movement.pad import Pad, Pad12
from irgraph.ops.movement.reverse import Reverse
from irgraph.ops.movement.roll import Roll
from irgraph.ops.movement.slice import Slice
from irgraph.ops.movement.split import Split
from irgraph.ops.movement.strided_slice import StridedSlice
from irgraph.ops.movement.tile import Tile
from irgraph.ops.movement.transpose import Transpose
from irgraph.ops.movement.variadic_split import VariadicSplit, resolve_static_lengths
from irgraph.ops.op import normalize_axis
from irgraph.ops.shape.reshape import Reshape
from irgraph.ops.shape.shape_of import ShapeOf1, ShapeOf3
from irgraph.ops.shape.squeeze import Squeeze, Squeeze15
from irgraph.ops.shape.unsqueeze import Unsqueeze

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


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
    axis = constant_axis(ctx, node, 1)
    attributes: dict[str, Any] = {"num_outputs": op.num_splits} if ctx.opset >= 18 else {}
    return [ctx.make(node, "Split", [ctx.inputs(node)[0]], ctx.outputs(node), axis=axis, **attributes)]


@exports(VariadicSplit)
def variadic_split(node: Node, op: VariadicSplit, ctx: ExportContext) -> list:
    """Split with an int64 split input; a -1 length is resolved (ONNX Split's lengths are >= 0): on a static dim
    at export when the lengths are constant, else in the graph (computed lengths of any integer type are cast)."""
    axis = constant_axis(ctx, node, 1)
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
            resolved = resolve_static_lengths(lengths, dim.value)
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
    elif computed is None:
        raise AssertionError("Roll's shifts are neither constant nor computed")
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
