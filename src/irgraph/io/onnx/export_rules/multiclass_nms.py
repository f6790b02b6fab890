"""MulticlassNms-8 and -9 (shared boxes ``[B, N, 4]``, scores ``[B, C, N]``) as ONNX NonMaxSuppression plus the
nodes that make OpenVINO's outputs; refused for ``roisnum`` (MulticlassNms-9's third input), unnormalized boxes
(IoU adds 1 to the sides) and an adaptive threshold (``nms_eta`` < 1), which ONNX's op has no form for.

* The background class gets scores of -inf; ``nms_top_k`` keeps each class's best scores (TopK over the boxes:
  ties to the lower box, OpenVINO's order) and sets the rest to -inf.
* OpenVINO keeps scores >= score_threshold and suppresses at IoU >= iou_threshold: ONNX's > at the next f32 below
  each. A threshold every IoU meets (<= 0) keeps each class's best box alone (the limit 1); above 1 none is
  suppressed. OpenVINO's IoU is 0 for a box of no positive area, so such boxes go to ONNX as zeros (onnxruntime
  never suppresses with a box of no area).
* The rows (batch, class, box, in selection order) are ordered as OpenVINO orders them with stable TopK sorts
  (ties keep the earlier row): per image by score, cut to ``keep_top_k`` by each row's rank in its image, then
  by class for ``classid``; across the batch by score or by class when asked.
* Outputs: ``[M, 6]`` (class, score, the box's values as given), ``[M, 1]`` indices ``image * N + box`` and the
  ``[B]`` counts.

What differs: OpenVINO compares a candidate whose score equals score_threshold exactly with the newest kept box
only (its loop stops there), ONNX with every kept box; boxes whose corners are both reversed (x1 > x2 and y1 > y2)
have a positive area for OpenVINO, which then computes their IoU unordered, while onnxruntime orders corners.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.export_rules.patterns import Pattern, cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.sort.multiclass_nms import MulticlassNms, MulticlassNms8

_I64 = onnx_type_code(ElementType.I64)


@exports(MulticlassNms8, MulticlassNms)
def multiclass_nms(node: Node, op: Any, ctx: ExportContext) -> list:
    """The pattern of the module docstring."""
    names = ctx.inputs(node)
    if len(names) > 2 and names[2]:
        raise ctx.refuse("roisnum (per-class boxes in runs per image) has no ONNX NonMaxSuppression form")
    if not op.normalized:
        raise ctx.refuse("normalized=false adds 1 to each side in the IoU; ONNX NonMaxSuppression cannot")
    if op.nms_eta < 1:
        raise ctx.refuse(f"nms_eta {op.nms_eta} lowers the threshold after each kept box; ONNX NonMaxSuppression "
                         "cannot")
    pattern = Pattern(ctx, node)
    made, step = pattern.made, pattern.step

    def const(name: str, value: object, dtype: Any = np.int64) -> str:
        return ctx.initializer(node, name, np.asarray(value, dtype))

    def dim(source: str, axis: int, name: str) -> str:
        return step("Slice", [step("Shape", [source], f"{name}_shape"), const(f"{name}_at", [axis]),
                              const(f"{name}_after", [axis + 1])], name)

    def stable_sort(rows: list[str], key: str, largest: bool, name: str) -> tuple[list[str], str]:
        """``rows`` (tensors with one entry per row) re-ordered by ``key``, ties keeping the earlier row."""
        count = dim(key, 0, f"{name}_count")
        _, order = step("TopK", [key, count], name, 2, axis=0, largest=int(largest), sorted=1)
        return [step("Gather", [row, order], f"{name}_{i}", axis=0) for i, row in enumerate(rows)], order

    boxes, scores = names[:2]
    box_type = ctx.input_type(node, 0).element_type
    if box_type is not ElementType.F32:
        boxes = cast(ctx, node, boxes, ElementType.F32, "boxes_f32", made)
    if ctx.input_type(node, 1).element_type is not ElementType.F32:
        scores = cast(ctx, node, scores, ElementType.F32, "scores_f32", made)
    minus_inf = const("minus_inf", -np.inf, np.float32)
    classes = dim(scores, 1, "classes")
    if op.background_class >= 0:
        class_ids = step("Reshape", [step("Range", [const("class_begin", 0), step("Squeeze", [classes], "c"),
                                                    const("class_step", 1)], "class_range"),
                                     const("class_shape", [1, -1, 1])], "class_ids")
        scores = step("Where", [step("Equal", [class_ids, const("background", op.background_class)], "is_background"),
                                minus_inf, scores], "scores_without_background")
    if op.nms_top_k > -1:
        best = step("Min", [const("top_k", [op.nms_top_k]), dim(scores, 2, "boxes_count")], "best_count")
        _, chosen = step("TopK", [scores, best], "class_best", 2, axis=2, largest=1, sorted=1)
        ones = step("Cast", [step("Expand", [const("one", 1), step("Shape", [chosen], "chosen_shape")], "ones")],
                    "ones_f32", to=onnx_type_code(ElementType.F32))
        zeros = step("ConstantOfShape", [step("Shape", [scores], "scores_shape")], "zeros")  # float 0 by default
        marked = step("ScatterElements", [zeros, chosen, ones], "marked", axis=2)
        scores = step("Where", [step("Greater", [marked, const("half", 0.5, np.float32)], "in_top"), scores,
                                minus_inf], "top_scores")
    # OpenVINO's IoU is 0 for a box of no positive area: such boxes go to ONNX as zeros (never suppressing).
    sides = step("Sub", [step("Slice", [boxes, const("hi_from", [2]), const("hi_to", [4]), const("hi_axis", [2])],
                              "high"),
                         step("Slice", [boxes, const("lo_from", [0]), const("lo_to", [2]), const("lo_axis", [2])],
                              "low")], "sides")
    area = step("Mul", [step("Slice", [sides, const("s0_from", [0]), const("s0_to", [1]), const("s0_axis", [2])],
                             "side0"),
                        step("Slice", [sides, const("s1_from", [1]), const("s1_to", [2]), const("s1_axis", [2])],
                             "side1")], "area")
    nms_boxes = step("Where", [step("Greater", [area, const("no_area", 0, np.float32)], "has_area"), boxes,
                               const("empty_box", 0, np.float32)], "nms_boxes")
    limit = const("limit", [2**31 - 1])
    bound = np.float32(op.iou_threshold)
    if bound <= 0:
        limit, bound = const("alone", [1]), np.float32(0)
    elif bound > 1:
        bound = np.float32(1)
    else:
        bound = np.nextafter(bound, np.float32(-np.inf))
    score_bound = np.nextafter(np.float32(op.score_threshold), np.float32(-np.inf))
    selected = step("NonMaxSuppression", [nms_boxes, scores, limit, const("iou", [bound], np.float32),
                                          const("score_threshold", [score_bound], np.float32)], "selected")
    columns = [step("Squeeze", [step("Slice", [selected, const(f"col{i}_from", [i]), const(f"col{i}_to", [i + 1]),
                                               const(f"col{i}_axis", [1])], f"col{i}"), const(f"col{i}_sq", [1])],
                    ("image", "klass", "box")[i]) for i in range(3)]
    picked = step("GatherND", [scores, selected], "picked")
    rows = [*columns, picked]
    rows, _ = stable_sort(rows, rows[3], True, "by_score")
    rows, _ = stable_sort(rows, rows[0], False, "by_image")
    images = dim(scores, 0, "images")
    image_range = step("Range", [const("image_begin", 0), step("Squeeze", [images], "b"), const("image_step", 1)],
                       "image_range")

    def per_image(image: str, name: str) -> str:
        """[rows, B] int64: 1 where the row belongs to the image."""
        return step("Cast", [step("Equal", [step("Unsqueeze", [image, const(f"{name}_axis", [1])], f"{name}_column"),
                                            image_range], f"{name}_is")], name, to=_I64)

    if op.keep_top_k > -1:
        membership = per_image(rows[0], "membership")
        running = step("CumSum", [membership, const("rows_axis", 0)], "running")
        rank = step("GatherElements", [running, step("Unsqueeze", [rows[0], const("rank_axis", [1])], "image_col")],
                    "rank", axis=1)
        keep = step("Squeeze", [step("LessOrEqual", [rank, const("keep_top_k", op.keep_top_k)], "kept"),
                                const("keep_axis", [1])], "keep")
        rows = [step("Compress", [row, keep], f"cut{i}", axis=0) for i, row in enumerate(rows)]
    sort = op.sort_result_type.lower()
    if op.sort_result_across_batch and sort == "score":
        rows, _ = stable_sort(rows, rows[3], True, "across_score")
    elif op.sort_result_across_batch and sort == "classid":
        rows, _ = stable_sort(rows, rows[1], False, "across_class")
    elif sort == "classid":
        rows, _ = stable_sort(rows, rows[1], False, "by_class")
        rows, _ = stable_sort(rows, rows[0], False, "by_image_again")
    image, klass, box, score = rows
    outputs = ctx.outputs(node)
    f32 = onnx_type_code(ElementType.F32)
    given = names[0] if box_type is ElementType.F32 else boxes
    values = step("GatherND", [given, step("Concat", [step("Unsqueeze", [image, const("i_axis", [1])], "image_col2"),
                                                      step("Unsqueeze", [box, const("b_axis", [1])], "box_col")],
                                           "image_box", axis=1)], "box_values")
    table = step("Concat", [step("Unsqueeze", [step("Cast", [klass], "class_f32", to=f32), const("k_axis", [1])],
                                 "class_col"),
                            step("Unsqueeze", [score, const("s_axis", [1])], "score_col"), values], "table", axis=1)
    made.append(ctx.make(node, "Cast", [table], [outputs[0]], to=onnx_type_code(box_type)))
    flat = step("Add", [step("Mul", [image, step("Squeeze", [dim(names[0], 1, "per_image")], "n")], "image_base"),
                        box], "flat")
    made.append(ctx.make(node, "Cast", [step("Unsqueeze", [flat, const("flat_axis", [1])], "flat_col")],
                         [outputs[1]], step="indices", to=onnx_type_code(op.output_type)))
    counts = step("ReduceSum", [per_image(image, "final_membership"), const("count_axis", [0])], "counts", keepdims=0)
    made.append(ctx.make(node, "Cast", [counts], [outputs[2]], step="counts_typed", to=onnx_type_code(op.output_type)))
    return made
