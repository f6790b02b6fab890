"""Block rearrangements: ShuffleChannels, DepthToSpace, SpaceToDepth, SpaceToBatch, BatchToSpace, Col2Im,
ExtractImagePatches and ReverseSequence, as ONNX's own op where it orders the blocks as OpenVINO does, else as
Reshapes and Transposes (or a gather) computed on the static shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.errors import OpError
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import (
    constant_ints,
    input_rank,
    int64_input,
)
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.movement.batch_to_space import BatchToSpace
from irgraph.ops.movement.col2im import Col2Im
from irgraph.ops.movement.depth_to_space import DepthToSpace
from irgraph.ops.movement.extract_image_patches import ExtractImagePatches
from irgraph.ops.movement.reverse_sequence import ReverseSequence
from irgraph.ops.movement.shuffle_channels import ShuffleChannels
from irgraph.ops.movement.space_to_batch import SpaceToBatch
from irgraph.ops.movement.space_to_depth import SpaceToDepth
from irgraph.ops.op import normalize_axis


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
    block, begin, end = (constant_ints(ctx, node, index, what) for index, what in
                         ((1, "block_shape"), (2, "begin vector"), (3, "end vector")))
    return shape.to_tuple(), block, begin, end


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
