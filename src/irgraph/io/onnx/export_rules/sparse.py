"""Embedding bags: EmbeddingBagPacked(Sum), EmbeddingBagOffsets(Sum) and EmbeddingSegmentsSum.

One pattern serves all five: each index gets a 1-based bag (0: no bag, for indices before the first
offset), the gathered (and weighted) rows are added into ``bags + 1`` rows of zeros by ScatterND's
add reduction (opset 16) in index order, as OpenVINO adds them, row 0 is dropped, empty bags take
the default_index row (when given and >= 0), and ``mean`` divides by each bag's row count. f16 and
bf16 tables are summed in f32 and rounded once, as irgraph does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import cast, input_rank, int64_input, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.sparse.embedding_bag_offsets import EmbeddingBagOffsets
from irgraph.ops.sparse.embedding_bag_offsets_sum import EmbeddingBagOffsetsSum
from irgraph.ops.sparse.embedding_bag_packed import EmbeddingBagPacked
from irgraph.ops.sparse.embedding_bag_packed_sum import EmbeddingBagPackedSum
from irgraph.ops.sparse.embedding_segments_sum import EmbeddingSegmentsSum

_INT64_MAX = 2**63 - 1


def _i64(ctx: ExportContext, node: Node, step: str, values: Any) -> str:
    return ctx.initializer(node, step, np.asarray(values, np.int64))


def _bag_sums(ctx: ExportContext, node: Node, made: list, *, indices: str, bags: str, slots: str,
              weights: str | None, default: int | None, mean: bool) -> None:
    """Rows of the table at ``indices`` (1-D int64) summed into bags ``bags`` (1-D int64, 1-based) of
    ``slots`` ([1] int64: bags + 1); the layer's output written."""
    if ctx.opset < 16:
        raise ctx.refuse("embedding bags need ScatterND's add reduction (opset 16)")
    table = ctx.inputs(node)[0]
    table_type = ctx.input_type(node, 0).element_type
    wide_type = ElementType.F32 if table_type in (ElementType.F16, ElementType.BF16) else table_type
    dtype = wide_type.numpy_dtype
    trailing = input_rank(ctx, node, 0) - 1
    t = {s: ctx.temp(node, s) for s in ("rows", "weighted", "row_dims", "sums_shape", "zeros", "bag_column",
                                        "all_sums", "sums", "ones", "count_zeros", "all_counts", "counts",
                                        "result")}
    made += [ctx.make(node, "Gather", [table, indices], [t["rows"]], step="rows", axis=0)]
    rows = t["rows"]
    if wide_type is not table_type:
        rows = cast(ctx, node, rows, wide_type, "rows_f32", made)
    if weights is not None:
        if wide_type is not ctx.input_type(node, 0).element_type:
            weights = cast(ctx, node, weights, wide_type, "weights_f32", made)
        shaped = ctx.temp(node, "weights_shaped")
        made += [ctx.make(node, "Unsqueeze", [weights, _i64(ctx, node, "weight_axes", np.arange(1, trailing + 1))],
                          [shaped], step="weights_shaped"),
                 ctx.make(node, "Mul", [rows, shaped], [t["weighted"]], step="weighted")]
        rows = t["weighted"]
    table_shape = ctx.temp(node, "table_shape")
    made += [
        ctx.make(node, "Shape", [table], [table_shape], step="table_shape"),
        ctx.make(node, "Slice", [table_shape, _i64(ctx, node, "one", [1]), _i64(ctx, node, "end", [_INT64_MAX])],
                 [t["row_dims"]], step="row_dims"),
        ctx.make(node, "Concat", [slots, t["row_dims"]], [t["sums_shape"]], step="sums_shape", axis=0),
        ctx.make(node, "Expand", [ctx.initializer(node, "zero", np.zeros((), dtype)), t["sums_shape"]], [t["zeros"]],
                 step="zeros"),
        ctx.make(node, "Unsqueeze", [bags, _i64(ctx, node, "last", [-1])], [t["bag_column"]], step="bag_column"),
        ctx.make(node, "ScatterND", [t["zeros"], t["bag_column"], rows], [t["all_sums"]], step="all_sums",
                 reduction="add"),
        ctx.make(node, "Slice", [t["all_sums"], _i64(ctx, node, "first", [1]), _i64(ctx, node, "last_row",
                                                                                   [_INT64_MAX])],
                 [t["sums"]], step="sums"),
    ]
    sums = t["sums"]
    need_counts = mean or default is not None
    if need_counts:
        bag_shape = ctx.temp(node, "bag_shape")
        made += [
            ctx.make(node, "Shape", [bags], [bag_shape], step="bag_shape"),
            ctx.make(node, "Expand", [_i64(ctx, node, "one_count", 1), bag_shape], [t["ones"]], step="ones"),
            ctx.make(node, "Expand", [_i64(ctx, node, "zero_count", 0), slots], [t["count_zeros"]],
                     step="count_zeros"),
            ctx.make(node, "ScatterND", [t["count_zeros"], t["bag_column"], t["ones"]], [t["all_counts"]],
                     step="all_counts", reduction="add"),
            ctx.make(node, "Slice", [t["all_counts"], _i64(ctx, node, "first_count", [1]),
                                     _i64(ctx, node, "last_count", [_INT64_MAX])], [t["counts"]], step="counts"),
        ]
    counts = t["counts"]
    if default is not None and default >= 0:
        empty, fill_rows, default_row, filled, filled_counts = (ctx.temp(node, s) for s in (
            "empty", "fill_rows", "default_row", "filled", "filled_counts"))
        made += [
            ctx.make(node, "Equal", [counts, _i64(ctx, node, "zero_bags", 0)], [empty], step="empty"),
            ctx.make(node, "Unsqueeze", [empty, _i64(ctx, node, "fill_axes", np.arange(1, trailing + 1))],
                     [fill_rows], step="fill_rows"),
            ctx.make(node, "Gather", [table, _i64(ctx, node, "default_index", default)], [default_row],
                     step="default_row", axis=0),
        ]
        if wide_type is not table_type:
            default_row = cast(ctx, node, default_row, wide_type, "default_row_f32", made)
        made += [ctx.make(node, "Where", [fill_rows, default_row, sums], [filled], step="filled"),
                 ctx.make(node, "Where", [empty, _i64(ctx, node, "one_bag", 1), counts], [filled_counts],
                          step="filled_counts")]
        sums, counts = filled, filled_counts
    output = ctx.outputs(node)[0]
    if mean:
        divisor, shaped = ctx.temp(node, "divisor"), ctx.temp(node, "divisor_shaped")
        made += [ctx.make(node, "Max", [counts, _i64(ctx, node, "at_least_one", 1)], [divisor + "_i64"],
                          step="divisor_i64"),
                 ctx.make(node, "Cast", [divisor + "_i64"], [divisor], step="divisor",
                          to=onnx_type_code(wide_type)),
                 ctx.make(node, "Unsqueeze", [divisor, _i64(ctx, node, "divisor_axes", np.arange(1, trailing + 1))],
                          [shaped], step="divisor_shaped")]
        mean_out = output if wide_type is table_type else t["result"]
        made.append(ctx.make(node, "Div", [sums, shaped], [mean_out], **({} if mean_out == output else
                                                                          {"step": "mean"})))
        sums = mean_out
    if wide_type is not table_type:
        made.append(ctx.make(node, "Cast", [sums], [output], to=onnx_type_code(table_type)))
    elif sums != output:
        made.append(ctx.make(node, "Identity", [sums], [output]))


def _default(ctx: ExportContext, node: Node, index: int) -> int | None:
    names = ctx.inputs(node)
    if len(names) <= index or not names[index]:
        return None
    value = ctx.constant(node, index)
    if value is None:
        raise ctx.refuse("a computed default_index (whether it is negative decides the empty bags' rows)")
    return int(np.asarray(value).reshape(-1)[0])


def _weights(ctx: ExportContext, node: Node, index: int, made: list) -> str | None:
    names = ctx.inputs(node)
    if len(names) <= index or not names[index]:
        return None
    flat = ctx.temp(node, "weights_flat")
    made.append(ctx.make(node, "Reshape", [names[index], _i64(ctx, node, "flat", [-1])], [flat], step="weights_flat"))
    return flat


@exports(EmbeddingBagPackedSum, EmbeddingBagPacked)
def embedding_bag_packed(node: Node, op: Any, ctx: ExportContext) -> list:
    """Bag b holds row b of the [B, L] indices: bag numbers 1..B repeated L times."""
    made: list = []
    indices = int64_input(ctx, node, 1, "indices", made)
    t = {s: ctx.temp(node, s) for s in ("flat", "index_shape", "batch", "bag_numbers", "bag_column", "bag_grid",
                                        "bags", "slots")}
    made += [
        ctx.make(node, "Reshape", [indices, _i64(ctx, node, "flat_shape", [-1])], [t["flat"]], step="flat"),
        ctx.make(node, "Shape", [indices], [t["index_shape"]], step="index_shape"),
        ctx.make(node, "Gather", [t["index_shape"], _i64(ctx, node, "batch_axis", 0)], [t["batch"]], step="batch",
                 axis=0),
        ctx.make(node, "Add", [t["batch"], _i64(ctx, node, "plus_one", 1)], [t["slots"] + "_scalar"],
                 step="slots_scalar"),
        ctx.make(node, "Range", [_i64(ctx, node, "first_bag", 1), t["slots"] + "_scalar",
                                 _i64(ctx, node, "bag_step", 1)], [t["bag_numbers"]], step="bag_numbers"),
        ctx.make(node, "Unsqueeze", [t["bag_numbers"], _i64(ctx, node, "column_axis", [1])], [t["bag_column"]],
                 step="bag_column"),
        ctx.make(node, "Expand", [t["bag_column"], t["index_shape"]], [t["bag_grid"]], step="bag_grid"),
        ctx.make(node, "Reshape", [t["bag_grid"], _i64(ctx, node, "bags_shape", [-1])], [t["bags"]], step="bags"),
        ctx.make(node, "Unsqueeze", [t["slots"] + "_scalar", _i64(ctx, node, "slots_axis", [0])], [t["slots"]],
                 step="slots"),
    ]
    _bag_sums(ctx, node, made, indices=t["flat"], bags=t["bags"], slots=t["slots"],
              weights=_weights(ctx, node, 2, made), default=None, mean=getattr(op, "reduction", "sum") == "mean")
    return made


@exports(EmbeddingBagOffsetsSum, EmbeddingBagOffsets)
def embedding_bag_offsets(node: Node, op: Any, ctx: ExportContext) -> list:
    """Index i's bag is the count of offsets <= i (0: before the first offset, no bag)."""
    made: list = []
    indices = int64_input(ctx, node, 1, "indices", made)
    offsets = int64_input(ctx, node, 2, "offsets", made)
    t = {s: ctx.temp(node, s) for s in ("index_count", "positions", "position_column", "offset_row", "started",
                                        "started_i64", "bags", "offset_count", "slots")}
    made += [
        ctx.make(node, "Shape", [indices], [t["index_count"] + "_vector"], step="index_count_vector"),
        ctx.make(node, "Squeeze", [t["index_count"] + "_vector", _i64(ctx, node, "squeeze_axes", [0])],
                 [t["index_count"]], step="index_count"),
        ctx.make(node, "Range", [_i64(ctx, node, "zero", 0), t["index_count"], _i64(ctx, node, "step", 1)],
                 [t["positions"]], step="positions"),
        ctx.make(node, "Unsqueeze", [t["positions"], _i64(ctx, node, "column", [1])], [t["position_column"]],
                 step="position_column"),
        ctx.make(node, "Unsqueeze", [offsets, _i64(ctx, node, "row", [0])], [t["offset_row"]], step="offset_row"),
        ctx.make(node, "LessOrEqual", [t["offset_row"], t["position_column"]], [t["started"]], step="started"),
        ctx.make(node, "Cast", [t["started"]], [t["started_i64"]], step="started_i64",
                 to=onnx_type_code(ElementType.I64)),
        ctx.make(node, "ReduceSum", [t["started_i64"], _i64(ctx, node, "offset_axis", [1])], [t["bags"]],
                 step="bags", keepdims=0),
        ctx.make(node, "Shape", [offsets], [t["offset_count"]], step="offset_count"),
        ctx.make(node, "Add", [t["offset_count"], _i64(ctx, node, "plus_one", [1])], [t["slots"]], step="slots"),
    ]
    _bag_sums(ctx, node, made, indices=indices, bags=t["bags"], slots=t["slots"],
              weights=_weights(ctx, node, 4, made), default=_default(ctx, node, 3),
              mean=getattr(op, "reduction", "sum") == "mean")
    return made


@exports(EmbeddingSegmentsSum)
def embedding_segments_sum(node: Node, op: EmbeddingSegmentsSum, ctx: ExportContext) -> list:
    """Index i's bag is segment_ids[i] + 1, of num_segments + 1 slots."""
    made: list = []
    indices = int64_input(ctx, node, 1, "indices", made)
    segments = int64_input(ctx, node, 2, "segment_ids", made)
    count = int64_input(ctx, node, 3, "num_segments", made, scalar=False)
    bags, slots, count_vector = ctx.temp(node, "bags"), ctx.temp(node, "slots"), ctx.temp(node, "count_vector")
    made += [ctx.make(node, "Add", [segments, _i64(ctx, node, "plus_one", 1)], [bags], step="bags"),
             ctx.make(node, "Reshape", [count, _i64(ctx, node, "vector", [1])], [count_vector], step="count_vector"),
             ctx.make(node, "Add", [count_vector, _i64(ctx, node, "slot_zero", [1])], [slots], step="slots")]
    _bag_sums(ctx, node, made, indices=indices, bags=bags, slots=slots, weights=_weights(ctx, node, 5, made),
              default=_default(ctx, node, 4), mean=False)
    return made
