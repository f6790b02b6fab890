"""SearchSorted and SegmentMax: ONNX has neither; exact patterns of comparisons, counts and scatters.

* SearchSorted: each value against every element of its row (``Less``, or ``LessOrEqual`` in right mode),
  the true ones counted: irgraph's own definition (``std::lower_bound`` on a sorted row gives the same), in
  memory ``values x row length``.
* SegmentMax: ``ScatterND`` with reduction ``max`` (opset 18) of the rows into the type's lowest value at
  their segment ids; NaN rows become the lowest value first (irgraph and OpenVINO's ``std::max`` from the
  lowest never keep a NaN), rows of ids past ``num_segments`` scatter the lowest value into the last segment
  (they are dropped), and with ``fill_mode`` ZERO a count of each segment's rows turns the empty ones to 0.
"""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, cast, input_rank, int64_input, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.arithmetic.segment_max import SegmentMax
from irgraph.ops.sort.search_sorted import SearchSorted


@exports(SearchSorted)
def search_sorted(node: Node, op: SearchSorted, ctx: ExportContext) -> list:
    """Count the row's elements below (or not above) each value (module docstring)."""
    sequence, values = ctx.inputs(node)
    pattern = Pattern(ctx, node)
    made, step = pattern.made, pattern.step

    minus_one = ctx.initializer(node, "last", np.asarray([-1], np.int64))
    row = step("Unsqueeze", [sequence, ctx.initializer(node, "row_axis", np.asarray([-2], np.int64))], "row")
    column = step("Unsqueeze", [values, minus_one], "column")
    below = step("LessOrEqual" if op.right_mode else "Less", [row, column], "below")
    counted = step("Cast", [below], "counted", to=onnx_type_code(op.output_type))
    made.append(ctx.make(node, "ReduceSum", [counted, minus_one], ctx.outputs(node), keepdims=0))
    return made


@exports(SegmentMax)
def segment_max(node: Node, op: SegmentMax, ctx: ExportContext) -> list:
    """ScatterND max into the lowest value, NaN and dropped rows neutralised, empty segments filled
    (module docstring)."""
    if ctx.opset < 18:
        raise ctx.refuse("ONNX ScatterND takes reduction 'max' from opset 18")
    rank = input_rank(ctx, node, 0)
    element_type = ctx.input_type(node, 0).element_type
    dtype = np.dtype(element_type.numpy_dtype)
    lowest = np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min
    names = ctx.inputs(node)
    pattern = Pattern(ctx, node)
    made, step, int64 = pattern.made, pattern.step, pattern.int64

    ids = int64_input(ctx, node, 1, "ids", made, scalar=False)
    if len(names) > 2 and names[2]:
        count = step("Reshape", [int64_input(ctx, node, 2, "num_segments", made), int64("count_shape", [1])],
                     "count")
    else:
        largest = step("ReduceMax", [ids, int64("ids_axis", [0])], "largest", keepdims=1)
        count = step("Add", [largest, int64("one", [1])], "count")
    low = ctx.initializer(node, "lowest", np.asarray(lowest, dtype))
    data = names[0]
    if dtype.kind == "f":
        data = step("Where", [step("IsNaN", [data], "nan"), low, data], "numbers")
    kept = step("Less", [ids, count], "kept")  # ids are sorted: the rows past num_segments are dropped
    row_axes = int64("row_axes", list(range(1, rank)))
    kept_rows = step("Unsqueeze", [kept, row_axes], "kept_rows") if rank > 1 else kept
    data = step("Where", [kept_rows, data, low], "rows")
    last = step("Sub", [count, int64("one_back", [1])], "last")
    ids = step("Min", [ids, last], "clamped")
    indices = step("Unsqueeze", [ids, int64("index_axis", [1])], "indices")
    shape = step("Concat", [count, step("Slice", [step("Shape", [names[0]], "data_shape"), int64("from", [1]),
                                                  int64("to", [rank])], "row_shape")], "shape", axis=0)
    start = step("Expand", [low, shape], "start")
    output = ctx.outputs(node)[0]
    if op.fill_mode.lower() != "zero":
        made.append(ctx.make(node, "ScatterND", [start, indices, data], [output], reduction="max"))
        return made
    maxima = step("ScatterND", [start, indices, data], "maxima", reduction="max")
    ones = cast(ctx, node, kept, ElementType.I64, "ones", made)
    counts = step("ScatterND", [step("Expand", [int64("zero", 0), count], "zeros"), indices, ones], "counts",
                  reduction="add")
    filled = step("Greater", [counts, int64("none", 0)], "filled")
    if rank > 1:
        filled = step("Unsqueeze", [filled, row_axes], "filled_rows")
    made.append(ctx.make(node, "Where", [filled, maxima, ctx.initializer(node, "fill", np.asarray(0, dtype))],
                         [output]))
    return made
