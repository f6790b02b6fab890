"""MatrixNms-8: irgraph's vectorised Matrix NMS in ONNX nodes, every image and class at once.

Per image and class the best ``nms_top_k`` candidates by score (TopK: ties to the lower box, OpenVINO's order;
scores at or below score_threshold and the background class as -inf) get the IoU matrix of their boxes as
irgraph computes it (0 for boxes apart, areas 0 for reversed corners, 1 added to the sides unless normalized),
each candidate's largest IoU with the candidates above it, the decay of every pair (linear ``(1 - iou) / (1 -
max_iou + 1e-10)`` in f32, gaussian ``exp((max_iou^2 - iou^2) * sigma)`` with exp in f64 then rounded, as irgraph)
and the smallest decay over the candidates above; decayed scores above post_threshold are kept (NonZero, in
image, class, rank order), ordered with stable TopK sorts by box, class, score and image (OpenVINO's per-image
order), cut to ``keep_top_k`` by their rank in their image, then sorted across the batch when asked. With
``nms_top_k`` 0 nothing is a candidate: empty rows and zero counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.graph import Node
from irgraph.io.onnx.common import require_onnx
from irgraph.io.onnx.export_rules.patterns import Pattern, cast, onnx_type_code
from irgraph.io.onnx.export_rules.registry import ExportContext, exports
from irgraph.ops.sort.matrix_nms import MatrixNms

_I64 = onnx_type_code(ElementType.I64)
_F32 = onnx_type_code(ElementType.F32)


@exports(MatrixNms)
def matrix_nms(node: Node, op: MatrixNms, ctx: ExportContext) -> list:
    """The pattern of the module docstring."""
    names = ctx.inputs(node)
    pattern = Pattern(ctx, node)
    made, step = pattern.made, pattern.step

    def const(name: str, value: object, dtype: Any = np.int64) -> str:
        return ctx.initializer(node, name, np.asarray(value, dtype))

    def f32(name: str, value: float) -> str:
        return const(name, value, np.float32)

    def dim(source: str, axis: int, name: str) -> str:
        return step("Slice", [step("Shape", [source], f"{name}_shape"), const(f"{name}_at", [axis]),
                              const(f"{name}_after", [axis + 1])], name)

    def part(source: str, index: int, name: str) -> str:
        """Coordinate ``index`` of boxes ``[..., 4]``, keeping the axis."""
        return step("Slice", [source, const(f"{name}_from", [index]), const(f"{name}_to", [index + 1]),
                              const(f"{name}_axis", [-1])], name)

    def stable_sort(rows: list[str], key: str, largest: bool, name: str) -> list[str]:
        count = dim(key, 0, f"{name}_count")
        _, order = step("TopK", [key, count], name, 2, axis=0, largest=int(largest), sorted=1)
        return [step("Gather", [row, order], f"{name}_{i}", axis=0) for i, row in enumerate(rows)]

    boxes, scores = names[:2]
    box_type = ctx.input_type(node, 0).element_type
    outputs = ctx.outputs(node)
    if op.nms_top_k == 0:  # no candidate at all: empty rows and zero counts
        ctx.define(outputs[0], np.zeros((0, 6), box_type.numpy_dtype))
        ctx.define(outputs[1], np.zeros((0, 1), op.output_type.numpy_dtype))
        made.append(ctx.make(node, "ConstantOfShape", [dim(scores, 0, "images")], [outputs[2]],
                             value=require_onnx().numpy_helper.from_array(np.zeros(1, op.output_type.numpy_dtype))))
        return made
    if box_type is not ElementType.F32:
        boxes = cast(ctx, node, boxes, ElementType.F32, "boxes_f32", made)
    if ctx.input_type(node, 1).element_type is not ElementType.F32:
        scores = cast(ctx, node, scores, ElementType.F32, "scores_f32", made)
    minus_inf = f32("minus_inf", -np.inf)
    scores = step("Where", [step("Greater", [scores, f32("score_threshold", op.score_threshold)], "candidate"),
                            scores, minus_inf], "candidates")
    if op.background_class >= 0:
        classes = step("Squeeze", [dim(scores, 1, "classes"), const("classes_axis", [0])], "class_count")
        class_ids = step("Reshape", [step("Range", [const("class_begin", 0), classes, const("class_step", 1)],
                                          "class_range"), const("class_shape", [1, -1, 1])], "class_ids")
        scores = step("Where", [step("Equal", [class_ids, const("background", op.background_class)], "background_is"),
                                minus_inf, scores], "scores_without_background")
    count = dim(scores, 2, "box_count")
    if op.nms_top_k > -1:
        count = step("Min", [const("top_k", [op.nms_top_k]), count], "candidate_count")
    ranked, order = step("TopK", [scores, count], "ranked", 2, axis=2, largest=1, sorted=1)  # [B, C, K]
    batch_boxes = step("Reshape", [order, const("flat_order_shape", [0, -1, 1])], "flat_order")  # [B, C*K, 1]
    chosen = step("GatherND", [boxes, batch_boxes], "chosen_flat", batch_dims=1)  # [B, C*K, 4]
    shape = step("Concat", [step("Shape", [order], "order_shape"), const("four", [4])], "chosen_shape", axis=0)
    chosen = step("Reshape", [chosen, shape], "chosen")  # [B, C, K, 4]
    norm = f32("norm", 0 if op.normalized else 1)
    x1, y1, x2, y2 = (part(chosen, i, f"c{i}") for i in range(4))  # [B, C, K, 1] each
    transposed = [step("Transpose", [c], f"t{i}", perm=[0, 1, 3, 2]) for i, c in enumerate((x1, y1, x2, y2))]
    tx1, ty1, tx2, ty2 = transposed  # [B, C, 1, K]: a is the row (i), b the column (j)
    apart = step("Or", [step("Or", [step("Greater", [tx1, x2], "b0_a2"), step("Less", [tx2, x1], "b2_a0")], "apart_x"),
                        step("Or", [step("Greater", [ty1, y2], "b1_a3"), step("Less", [ty2, y1], "b3_a1")], "apart_y")],
                 "apart")
    width = step("Add", [step("Sub", [step("Min", [x2, tx2], "min_x2"), step("Max", [x1, tx1], "max_x1")], "w0"), norm],
                 "width")
    height = step("Add", [step("Sub", [step("Min", [y2, ty2], "min_y2"), step("Max", [y1, ty1], "max_y1")], "h0"),
                          norm], "height")
    inter = step("Mul", [width, height], "inter")
    reversed_ = step("Or", [step("Less", [x2, x1], "rev_x"), step("Less", [y2, y1], "rev_y")], "reversed")
    raw_area = step("Mul", [step("Add", [step("Sub", [x2, x1], "side_x"), norm], "side_x1"),
                            step("Add", [step("Sub", [y2, y1], "side_y"), norm], "side_y1")], "raw_area")
    area = step("Where", [reversed_, f32("no_area", 0), raw_area], "area")  # [B, C, K, 1]
    union = step("Sub", [step("Add", [area, step("Transpose", [area], "area_t", perm=[0, 1, 3, 2])], "areas"), inter],
                 "union")
    iou = step("Where", [apart, f32("apart_iou", 0), step("Div", [inter, union], "ratio")], "iou")  # [B, C, K, K]
    positions = step("Range", [const("k_begin", 0), step("Squeeze", [dim(order, 2, "k"), const("k_axis", [0])], "ks"),
                               const("k_step", 1)], "positions")
    below = step("Less", [step("Unsqueeze", [positions, const("row_axis", [0])], "position_row"),
                          step("Unsqueeze", [positions, const("col_axis", [1])], "position_col")], "below")  # j < i
    def reduce(op_type: str, source: str, name: str, keepdims: int) -> str:
        if ctx.opset >= 18:
            return step(op_type, [source, const(f"{name}_axes", [-1])], name, keepdims=keepdims)
        return step(op_type, [source], name, axes=[-1], keepdims=keepdims)

    max_iou = reduce("ReduceMax", step("Where", [below, iou, f32("no_iou", 0)], "above_iou"), "max_iou", 1)
    max_iou_j = step("Transpose", [max_iou], "max_iou_j", perm=[0, 1, 3, 2])  # [B, C, 1, K]
    if op.decay_function.lower() == "gaussian":
        exponent = step("Mul", [step("Sub", [step("Mul", [max_iou_j, max_iou_j], "max_sq"),
                                             step("Mul", [iou, iou], "iou_sq")], "sq_diff"),
                                f32("sigma", op.gaussian_sigma)], "exponent")
        wide = step("Exp", [step("Cast", [exponent], "exponent_f64", to=onnx_type_code(ElementType.F64))], "exp_f64")
        decay = step("Cast", [wide], "decay", to=_F32)
    else:
        decay = step("Div", [step("Sub", [f32("one", 1), iou], "one_minus_iou"),
                             step("Add", [step("Sub", [f32("one_m", 1), max_iou_j], "one_minus_max"),
                                          f32("tiny", 1e-10)], "denominator")], "decay")
    smallest = reduce("ReduceMin", step("Where", [below, decay, f32("no_decay", 1)], "above_decay"), "smallest", 0)
    decayed = step("Mul", [step("Min", [smallest, f32("one_cap", 1)], "capped"), ranked], "decayed")
    keep = step("And", [step("Greater", [decayed, f32("post_threshold", op.post_threshold)], "above_post"),
                        step("Greater", [ranked, minus_inf], "valid")], "keep")
    where = step("Transpose", [step("NonZero", [keep], "where")], "where_rows", perm=[1, 0])  # [M, 3]: b, c, k
    image, klass = (step("Squeeze", [step("Slice", [where, const(f"w{i}_from", [i]), const(f"w{i}_to", [i + 1]),
                                                    const(f"w{i}_axis", [1])], f"w{i}"), const(f"w{i}_sq", [1])],
                         ("image", "klass")[i]) for i in range(2))
    box = step("GatherND", [order, where], "box")
    score = step("GatherND", [decayed, where], "score")
    rows = [image, klass, box, score]
    rows = stable_sort(rows, rows[2], False, "by_box")
    rows = stable_sort(rows, rows[1], False, "by_class")
    rows = stable_sort(rows, rows[3], True, "by_score")
    rows = stable_sort(rows, rows[0], False, "by_image")
    images = step("Squeeze", [dim(scores, 0, "images"), const("images_axis", [0])], "image_count")
    image_range = step("Range", [const("image_begin", 0), images, const("image_step", 1)], "image_range")

    def per_image(image_rows: str, name: str) -> str:
        return step("Cast", [step("Equal", [step("Unsqueeze", [image_rows, const(f"{name}_axis", [1])],
                                                 f"{name}_column"), image_range], f"{name}_is")], name, to=_I64)

    if op.keep_top_k > -1:
        running = step("CumSum", [per_image(rows[0], "membership"), const("rows_axis", 0)], "running")
        rank = step("GatherElements", [running, step("Unsqueeze", [rows[0], const("rank_axis", [1])], "image_col")],
                    "rank", axis=1)
        kept = step("Squeeze", [step("LessOrEqual", [rank, const("keep_top_k", op.keep_top_k)], "within"),
                                const("keep_axis", [1])], "kept")
        rows = [step("Compress", [row, kept], f"cut{i}", axis=0) for i, row in enumerate(rows)]
    sort = op.sort_result_type.lower()
    if op.sort_result_across_batch and sort == "score":
        rows = stable_sort(rows, rows[3], True, "across_score")
    elif op.sort_result_across_batch and sort == "classid":
        rows = stable_sort(rows, rows[1], False, "across_class")
    image, klass, box, score = rows
    values = step("GatherND", [boxes, step("Concat", [step("Unsqueeze", [image, const("i_axis", [1])], "image_col2"),
                                                      step("Unsqueeze", [box, const("b_axis", [1])], "box_col")],
                                           "image_box", axis=1)], "box_values")
    table = step("Concat", [step("Unsqueeze", [step("Cast", [klass], "class_f32", to=_F32), const("k_axis2", [1])],
                                 "class_col"),
                            step("Unsqueeze", [score, const("s_axis", [1])], "score_col"), values], "table", axis=1)
    made.append(ctx.make(node, "Cast", [table], [outputs[0]], to=onnx_type_code(box_type)))
    flat = step("Add", [step("Mul", [image, step("Squeeze", [dim(names[0], 1, "per_image"), const("n_axis", [0])],
                                                 "n")], "image_base"), box], "flat")
    made.append(ctx.make(node, "Cast", [step("Unsqueeze", [flat, const("flat_axis", [1])], "flat_col")],
                         [outputs[1]], step="indices", to=onnx_type_code(op.output_type)))
    counts = step("ReduceSum", [per_image(image, "final_membership"), const("count_axis", [0])], "counts", keepdims=0)
    made.append(ctx.make(node, "Cast", [counts], [outputs[2]], step="counts_typed", to=onnx_type_code(op.output_type)))
    return made
