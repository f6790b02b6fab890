"""NonMaxSuppression-1, -3, -4, -5 and -9 as ONNX NonMaxSuppression plus the nodes that make OpenVINO's outputs.

ONNX's op selects per batch and class greedily by score, a box suppressed at IoU > iou_threshold and kept at
score > score_threshold, and lists (batch, class, box) rows by batch, class and selection order. What differs:

* NMS-9 suppresses at IoU > threshold (ONNX's rule); NMS-1/3/4/5 at IoU >= threshold, exported as ONNX's
  rule at the next f32 below a constant threshold (IoU is an f32 both sides compute), refused for a computed one.
  onnxruntime takes thresholds in [0, 1] only: a constant one that suppresses every IoU (below 0, or 0 for the
  inclusive rule) becomes a limit of one box per class, one above 1 becomes 1 (nothing is suppressed).
* soft-NMS (``soft_nms_sigma`` not a constant 0) has no ONNX form: refused.
* An absent score_threshold is 0 for OpenVINO (scores must exceed 0) and no threshold for ONNX: 0 is passed.
* ``sort_result_descending``: the rows are re-ordered by score with TopK, whose ties keep the earlier row (ONNX's
  rule), i.e. OpenVINO's order of batch, class and box index.
* NMS-5/9's selected_scores rows (batch, class, score) gather the scores of the selected boxes; valid_outputs
  is the row count. NMS-1/3/4's single output is padded with rows of -1 up to OpenVINO's static row bound.
* Boxes and scores are computed in f32 (as irgraph and OpenVINO's reference do).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.sort.non_max_suppression import (
    NonMaxSuppression,
    NonMaxSuppression1,
    NonMaxSuppression3,
    NonMaxSuppression4,
    NonMaxSuppression5,
)

_LEGACY = (NonMaxSuppression1, NonMaxSuppression3, NonMaxSuppression4)


@exports(NonMaxSuppression, NonMaxSuppression5, *_LEGACY)
def non_max_suppression(node: Node, op: Any, ctx: ExportContext) -> list:
    """ONNX NonMaxSuppression and the pattern of the module docstring."""
    names = ctx.inputs(node)
    pattern = Pattern(ctx, node)
    made, step = pattern.made, pattern.step

    def given(index: int) -> bool:
        return len(names) > index and bool(names[index])

    def f32_vector(index: int, what: str) -> str:
        name = names[index]
        if ctx.input_type(node, index).element_type is not ElementType.F32:
            name = cast(ctx, node, name, ElementType.F32, f"{what}_f32", made)
        return step("Reshape", [name, ctx.initializer(node, f"{what}_shape", np.asarray([1], np.int64))], what)

    if given(5):
        sigma = ctx.constant(node, 5)
        if sigma is None or float(np.asarray(sigma).reshape(-1)[0]) != 0:
            raise ctx.refuse("soft-NMS (soft_nms_sigma not a constant 0) has no ONNX form")
    boxes, scores = names[:2]
    box_type = ctx.input_type(node, 0).element_type
    if box_type is not ElementType.F32:
        boxes = cast(ctx, node, boxes, ElementType.F32, "boxes_f32", made)
    if ctx.input_type(node, 1).element_type is not ElementType.F32:
        scores = cast(ctx, node, scores, ElementType.F32, "scores_f32", made)
    if given(2):
        limit = names[2]
        if ctx.input_type(node, 2).element_type is not ElementType.I64:
            limit = cast(ctx, node, limit, ElementType.I64, "limit_i64", made)
        limit = step("Reshape", [limit, ctx.initializer(node, "limit_shape", np.asarray([1], np.int64))], "limit")
    else:
        limit = ctx.initializer(node, "limit", np.asarray([0], np.int64))
    inclusive = op.INCLUSIVE
    value = ctx.constant(node, 3) if given(3) else np.float32(0)
    if value is None:
        if inclusive:
            raise ctx.refuse("its iou_threshold is computed: IoU >= threshold (this version's rule) is exported as "
                             "ONNX's IoU > the next f32 below a constant threshold")
        threshold = f32_vector(3, "iou")  # onnxruntime refuses a value outside [0, 1] at run time
    else:
        bound = np.float32(np.asarray(value).reshape(-1)[0])
        if bound < 0 or (inclusive and bound <= 0):
            # Every IoU (>= 0) suppresses: each class keeps its best box alone (onnxruntime takes [0, 1] only).
            limit = step("Min", [limit, ctx.initializer(node, "alone", np.asarray([1], np.int64))], "limit_one")
            bound = np.float32(0)
        elif bound > 1:
            bound = np.float32(1)  # no IoU exceeds 1: nothing is suppressed
        elif inclusive:
            bound = np.nextafter(bound, np.float32(-np.inf))
        threshold = ctx.initializer(node, "iou", np.asarray([bound], np.float32))
        given_value = float(np.asarray(value).reshape(-1)[0])
        ctx.explain(f"layer {node.id} {node.name!r} {op.title()}: iou_threshold {given_value} "
                    f"({'IoU >= t' if inclusive else 'IoU > t'}) -> ONNX's IoU > {float(bound)!r}")
    score_threshold = f32_vector(4, "score_threshold") if given(4) else \
        ctx.initializer(node, "score_threshold", np.asarray([0], np.float32))
    selected = step("NonMaxSuppression", [boxes, scores, limit, threshold, score_threshold], "selected",
                    center_point_box=int(op.box_encoding == "center"))
    box_scores = step("GatherND", [scores, selected], "box_scores")  # [M]
    if op.sort_result_descending:
        count = _row_count(ctx, node, selected, "count", made)
        order = ctx.temp(node, "order")
        sorted_scores = ctx.temp(node, "sorted_scores")
        made.append(ctx.make(node, "TopK", [box_scores, count], [sorted_scores, order], step="order", axis=0,
                             largest=1, sorted=1))
        selected = step("Gather", [selected, order], "sorted", axis=0)
        box_scores = sorted_scores
    outputs = ctx.outputs(node)
    index_type = op.output_type
    if isinstance(op, _LEGACY):
        return made + _padded(ctx, node, op, selected, outputs[0], index_type)
    made.append(ctx.make(node, "Cast", [selected], [outputs[0]], step="indices", to=onnx_type_code(index_type)))
    rows = step("Cast", [step("Slice", [selected, ctx.initializer(node, "from", np.asarray([0], np.int64)),
                                        ctx.initializer(node, "to", np.asarray([2], np.int64)),
                                        ctx.initializer(node, "axis", np.asarray([1], np.int64))], "batch_class")],
                "batch_class_f32", to=onnx_type_code(ElementType.F32))
    column = step("Unsqueeze", [box_scores, ctx.initializer(node, "column", np.asarray([1], np.int64))], "score_column")
    joined = step("Concat", [rows, column], "scores_rows", axis=1)
    made.append(ctx.make(node, "Cast", [joined], [outputs[1]], step="selected_scores",
                         to=onnx_type_code(box_type)))
    count = _row_count(ctx, node, selected, "valid", made)
    made.append(ctx.make(node, "Cast", [count], [outputs[2]], to=onnx_type_code(index_type)))
    return made


def _padded(ctx: ExportContext, node: Node, op: Any, selected: str, output: str, index_type: ElementType) -> list:
    """NMS-1/3/4: the rows, then rows of -1 up to the static row bound (none when it is dynamic)."""
    limit = ctx.constant(node, 2) if len(ctx.inputs(node)) > 2 and ctx.inputs(node)[2] else np.zeros(())
    count = None if limit is None else int(float(np.asarray(limit).reshape(-1)[0]))
    boxes, scores = (ctx.input_type(node, i).shape for i in (0, 1))
    bound = op.rows(boxes, scores, count)
    made: list = []
    if not bound.is_static or bound.value == 0:
        return [ctx.make(node, "Cast", [selected], [output], to=onnx_type_code(index_type))]
    rows = _row_count(ctx, node, selected, "row_count", made)
    missing, short = ctx.temp(node, "missing"), ctx.temp(node, "short")
    made += [ctx.make(node, "Sub", [ctx.initializer(node, "bound", np.asarray([bound.value], np.int64)), rows],
                      [missing], step="missing"),
             ctx.make(node, "Max", [missing, ctx.initializer(node, "none", np.asarray([0], np.int64))], [short],
                      step="short")]
    pads, padded = ctx.temp(node, "pads"), ctx.temp(node, "padded")
    zeros = ctx.initializer(node, "zeros", np.zeros(1, np.int64))
    made += [ctx.make(node, "Concat", [zeros, zeros, short, zeros], [pads], step="pads", axis=0),
             ctx.make(node, "Pad", [selected, pads, ctx.initializer(node, "fill", np.asarray(-1, np.int64))],
                      [padded], step="padded", mode="constant"),
             ctx.make(node, "Cast", [padded], [output], to=onnx_type_code(index_type))]
    return made


def _row_count(ctx: ExportContext, node: Node, rows: str, step: str, made: list) -> str:
    """The [1] int64 count of ``rows``' rows (Shape and Slice: Shape's start/end need opset 15)."""
    shape, count = ctx.temp(node, f"{step}_shape"), ctx.temp(node, step)
    made += [ctx.make(node, "Shape", [rows], [shape], step=f"{step}_shape"),
             ctx.make(node, "Slice", [shape, ctx.initializer(node, f"{step}_from", np.asarray([0], np.int64)),
                                      ctx.initializer(node, f"{step}_to", np.asarray([1], np.int64))], [count],
                      step=step)]
    return count
