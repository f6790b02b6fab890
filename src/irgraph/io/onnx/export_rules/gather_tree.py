"""GatherTree-1: irgraph's backwards walk over the time steps as an ONNX Loop (exact: values are copied).

Iteration ``i`` handles step ``T - 1 - i`` for every batch element and beam at once, carrying the parent each
beam follows: a beam whose last step (``min(max_seq_len, T) - 1``, a negative length counting as T) is this
one takes its own step id and parent, a beam past it the step id and parent its carried parent names
(GatherElements over the beams), any other beam end_token. The Loop's scan output stacks the steps last to
first; after reversing them, every entry past a beam's first end_token (and within its length) becomes end_token.
"""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.common import require_onnx
from irgraph.io.onnx.export_rules.patterns import cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.movement.gather_tree import GatherTree

_INT64_MIN = -(2**63)


@exports(GatherTree)
def gather_tree(node: Node, op: GatherTree, ctx: ExportContext) -> list:
    """The Loop of the module docstring."""
    helper = require_onnx().helper
    step_ids, parent_idx, max_seq_len, end_token = ctx.inputs(node)
    element_type = ctx.input_type(node, 0).element_type
    made: list = []

    def step(into: list, op_type: str, inputs: list[str], name: str, **attributes: object) -> str:
        out = ctx.temp(node, name)
        into.append(ctx.make(node, op_type, inputs, [out], step=name, **attributes))
        return out

    def int64(name: str, value: object) -> str:
        return ctx.initializer(node, name, np.asarray(value, np.int64))

    shape = step(made, "Shape", [step_ids], "shape")
    time = step(made, "Slice", [shape, int64("time_from", [0]), int64("time_to", [1])], "time")
    time_scalar = step(made, "Squeeze", [time, int64("time_axes", [0])], "time_scalar")
    parents = parent_idx
    if ctx.input_type(node, 1).element_type is not ElementType.I64:
        parents = cast(ctx, node, parents, ElementType.I64, "parents_i64", made)
    lengths = max_seq_len
    if ctx.input_type(node, 2).element_type is not ElementType.I64:
        lengths = cast(ctx, node, lengths, ElementType.I64, "lengths_i64", made)
    lengths = step(made, "Where", [step(made, "Less", [lengths, int64("zero", 0)], "wrapped"), time,
                                   step(made, "Min", [lengths, time], "shortened")], "lengths")
    last = step(made, "Unsqueeze", [step(made, "Sub", [lengths, int64("one", 1)], "last_step"),
                                    int64("beam_axis", [1])], "last")  # [B, 1]
    beams_shape = step(made, "Slice", [shape, int64("beams_from", [1]), int64("beams_to", [3])], "beams_shape")
    first_parent = step(made, "ConstantOfShape", [beams_shape], "first_parent",
                        value=require_onnx().numpy_helper.from_array(np.zeros(1, np.int64)))
    end = end_token
    # The body: iteration i handles step T - 1 - i.
    iteration, condition, parent = (ctx.temp(node, s) for s in ("iteration", "condition", "parent"))
    body: list = []
    level = step(body, "Sub", [step(body, "Sub", [time_scalar, int64("one_step", 1)], "final_step"), iteration],
                 "level")
    ids = step(body, "Gather", [step_ids, level], "ids", axis=0)
    named = step(body, "Gather", [parents, level], "named", axis=0)
    starts = step(body, "Equal", [last, level], "starts")
    inside = step(body, "Greater", [last, level], "inside")
    started = step(body, "Where", [starts, named, parent], "started")
    safe = step(body, "Where", [inside, started, int64("safe_zero", 0)], "safe")
    followed_ids = step(body, "GatherElements", [ids, safe], "followed_ids", axis=1)
    followed = step(body, "GatherElements", [named, safe], "followed", axis=1)
    value = step(body, "Where", [inside, followed_ids, step(body, "Where", [starts, ids, end], "own")], "value")
    next_parent = step(body, "Where", [inside, followed, started], "next_parent")
    passed = step(body, "Identity", [condition], "passed")
    code = onnx_type_code(element_type)
    graph = helper.make_graph(
        body, f"{node.name}/body",
        [helper.make_tensor_value_info(iteration, onnx_type_code(ElementType.I64), []),
         helper.make_tensor_value_info(condition, onnx_type_code(ElementType.BOOLEAN), []),
         helper.make_tensor_value_info(parent, onnx_type_code(ElementType.I64), [None, None])],
        [helper.make_tensor_value_info(passed, onnx_type_code(ElementType.BOOLEAN), []),
         helper.make_tensor_value_info(next_parent, onnx_type_code(ElementType.I64), [None, None]),
         helper.make_tensor_value_info(value, code, [None, None])])
    final_parent, stacked = ctx.temp(node, "final_parent"), ctx.temp(node, "stacked")
    made.append(ctx.make(node, "Loop", [time_scalar, "", first_parent], [final_parent, stacked], step="walk",
                         body=graph))
    traced = step(made, "Slice", [stacked, int64("rev_from", [-1]), int64("rev_to", [_INT64_MIN]),
                                  int64("rev_axis", [0]), int64("rev_step", [-1])], "traced")
    ended = step(made, "Cast", [step(made, "Equal", [traced, end], "is_end")], "ended",
                 to=onnx_type_code(ElementType.I64))
    before = step(made, "Sub", [step(made, "CumSum", [ended, int64("cum_axis", 0)], "ends_so_far"), ended],
                  "ends_before")
    after_end = step(made, "Greater", [before, int64("no_end", 0)], "after_end")
    steps = step(made, "Unsqueeze", [step(made, "Range", [int64("begin", 0), time_scalar, int64("by", 1)], "steps"),
                                     int64("step_axes", [1, 2])], "step_column")
    valid = step(made, "LessOrEqual", [steps, step(made, "Unsqueeze", [last, int64("time_axis", [0])], "last_row")],
                 "valid")
    made.append(ctx.make(node, "Where", [step(made, "And", [after_end, valid], "finished"), end, traced],
                         ctx.outputs(node)))
    return made
