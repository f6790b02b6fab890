"""NMSRotated-13: NonMaxSuppression-9's greedy selection for rotated boxes ``(x_ctr, y_ctr, w, h, angle)``.

Boxes ``[B, N, 5]`` (angle in radians, clockwise, or counterclockwise when ``clockwise`` is false), scores
``[B, C, N]``; per batch and class the boxes above ``score_threshold`` are taken by score (ties: lower box) and
kept unless their IoU with a kept box is > ``iou_threshold``, at most ``max_output_boxes_per_class``. The IoU is
the area of the two rectangles' intersection (a convex polygon: the edge crossings and the corners inside the
other box, ordered by angle around their centre; detectron2's ``box_iou_rotated``, which OpenVINO ports) over
the union; 0 when a box has no area. Computed in float64: only IoUs within rounding of the threshold can decide
otherwise than OpenVINO's float32. Outputs as NonMaxSuppression-9 (indices, f32 ``(batch, class, score)``
rows, count), sorted by score (then batch, class, box) with ``sort_result_descending``.

openvino 2026.4.1 neither folds nor evaluates the op (its outputs' sizes depend on the values); its CPU plugin is
the oracle. The reference kernel found in OpenVINO's sources (``reference/src/op/nms_rotated.cpp``, a 2023 form
whose op still had a ``box_encoding`` attribute) negates the *first* box's angle once per candidate when
counterclockwise and reverses the selection instead of sorting it; the CPU plugin does neither, and irgraph
follows the plugin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.sort.non_max_suppression import OUTPUT_TYPES, select_class

F32 = np.float32


def rotated_vertices(boxes: np.ndarray) -> np.ndarray:
    """``[..., 4, 2]`` corners of ``[..., 5]`` boxes, in detectron2's order."""
    x, y, w, h, angle = (boxes[..., k] for k in range(5))
    cos_half, sin_half = np.cos(angle) * 0.5, np.sin(angle) * 0.5
    p0 = np.stack([x - sin_half * h - cos_half * w, y + cos_half * h - sin_half * w], -1)
    p1 = np.stack([x + sin_half * h - cos_half * w, y - cos_half * h - sin_half * w], -1)
    centre = np.stack([x, y], -1)
    return np.stack([p0, p1, 2 * centre - p0, 2 * centre - p1], -2)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1]


def _inside(points: np.ndarray, rectangle: np.ndarray) -> np.ndarray:
    """``[K, 4]``: which of ``points [K, 4, 2]`` lie in ``rectangle [K, 4, 2]`` (projections onto two edges)."""
    ab = rectangle[:, 1] - rectangle[:, 0]
    da = rectangle[:, 0] - rectangle[:, 3]
    ap = points - rectangle[:, None, 0]
    along_ab = (ap * ab[:, None]).sum(-1)
    along_ad = -(ap * da[:, None]).sum(-1)
    return ((along_ab >= 0) & (along_ad >= 0) & (along_ab <= (ab * ab).sum(-1)[:, None])
            & (along_ad <= (da * da).sum(-1)[:, None]))


def rotated_iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one rotated box ``[5]`` with each of ``others [K, 5]`` (module docstring), float64."""
    if not len(others):
        return np.zeros(0)
    first = np.broadcast_to(rotated_vertices(box.astype(np.float64)), (len(others), 4, 2))
    second = rotated_vertices(others.astype(np.float64))
    edges1 = np.roll(first, -1, axis=1) - first  # [K, 4, 2]
    edges2 = np.roll(second, -1, axis=1) - second
    e1, e2 = edges1[:, :, None], edges2[:, None, :]  # [K, 4, 1, 2], [K, 1, 4, 2]
    det = _cross(e2, e1)
    between = second[:, None, :] - first[:, :, None]
    with np.errstate(all="ignore"):
        t1 = _cross(e2, between) / det
        t2 = _cross(e1, between) / det
    crossing = (np.abs(det) > 1e-14) & (t1 >= 0) & (t1 <= 1) & (t2 >= 0) & (t2 <= 1)
    crossings = first[:, :, None] + e1 * np.where(crossing, t1, 0)[..., None]
    points = np.concatenate([crossings.reshape(-1, 16, 2), first, second], axis=1)  # [K, 24, 2]
    valid = np.concatenate([crossing.reshape(-1, 16), _inside(first, second), _inside(second, first)], axis=1)
    counts = valid.sum(1)
    centre = (points * valid[..., None]).sum(1) / np.maximum(counts, 1)[:, None]
    angles = np.arctan2(points[..., 1] - centre[:, None, 1], points[..., 0] - centre[:, None, 0])
    order = np.argsort(np.where(valid, angles, np.inf), axis=1, kind="stable")
    ordered = np.take_along_axis(points, order[..., None], axis=1)
    position = np.arange(points.shape[1])[None, :]
    following = np.where(position + 1 < counts[:, None], position + 1, 0)
    successor = np.take_along_axis(ordered, following[..., None], axis=1)
    twice_area = np.where(position < counts[:, None], _cross(ordered, successor), 0).sum(1)
    intersection = np.where(counts > 2, np.abs(twice_area) / 2, 0.0)
    area_box = float(box[2]) * float(box[3])
    areas = others[:, 2].astype(np.float64) * others[:, 3].astype(np.float64)
    with np.errstate(all="ignore"):
        result = intersection / (area_box + areas - intersection)
    return np.where((area_box <= 0) | (areas <= 0), 0.0, result)


@register
@dataclass(frozen=True)
class NMSRotated(Op):
    """Non-maximum suppression of rotated boxes (module docstring). Spec: NMSRotated-13."""

    type_name = "NMSRotated"
    introduced = 13
    inputs = Inputs.of(InputSpec("boxes"), InputSpec("scores"),
                       InputSpec("max_output_boxes_per_class"), InputSpec("iou_threshold"),
                       InputSpec("score_threshold"))

    sort_result_descending: bool = attribute(True)
    output_type: ElementType = attribute(ElementType.I64)
    clockwise: bool = attribute(True)

    def __post_init__(self) -> None:
        check(self.output_type in OUTPUT_TYPES, f"Output type must be i32 or i64. Got: {self.output_type}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Selected indices, selected scores, valid count."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[0..min(N, max_boxes) * B * C, 3]`` twice (the scores f32) and ``[1]``."""
        boxes, scores = inputs[:2]
        for tensor, name in ((boxes, "boxes"), (scores, "scores"), (inputs[3], "iou_threshold"),
                             (inputs[4], "score_threshold")):
            check(tensor.element_type.is_dynamic or tensor.element_type.is_real,
                  f"Expected floating point type as element type for the '{name}' input. Got: {tensor.element_type}")
        check(inputs[2].element_type.is_dynamic or inputs[2].element_type.is_integral,
              "Expected integer number type as element type for the 'max_output_boxes_per_class' input. Got: "
              f"{inputs[2].element_type}")
        for tensor, name in ((boxes, "boxes"), (scores, "scores")):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 3, f"Expected a 3D tensor for the '{name}' "
                  f"input. Got: {tensor.shape}")
        for index, name in ((2, "max_output_boxes_per_class"), (3, "iou_threshold"), (4, "score_threshold")):
            shape = inputs[index].shape
            check(shape.rank_is_dynamic or shape.rank == 0 or (shape.rank == 1 and shape[0].contains(1)),
                  f"Expected 0D or 1D tensor for the '{name}' input. Got: {shape}")
        if not boxes.shape.rank_is_dynamic and not scores.shape.rank_is_dynamic:
            check(boxes.shape[2].compatible(Dim.static(5)), "The last dimension of the 'boxes' input must be equal "
                  f"to 5. Got: {boxes.shape}")
            check(boxes.shape[0].compatible(scores.shape[0]) and boxes.shape[1].compatible(scores.shape[2]),
                  f"'boxes' and 'scores' input shapes must match. Got: {boxes.shape} and {scores.shape}")
        count = Dim.dynamic()
        limit = values[2]
        if limit is not None and not boxes.shape.rank_is_dynamic and not scores.shape.rank_is_dynamic:
            per_class = max(int(np.asarray(limit).reshape(-1)[0]), 0) if np.size(limit) else 0
            boxes_max, batch_max, classes_max = boxes.shape[1].max, scores.shape[0].max, scores.shape[1].max
            if boxes_max is not None and batch_max is not None and classes_max is not None:
                count = Dim(0, min(per_class, boxes_max) * batch_max * classes_max)
        rows = Shape((count, Dim.static(3)))
        return [TensorType(self.output_type, rows), TensorType(ElementType.F32, rows),
                TensorType(self.output_type, Shape((Dim.static(1),)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The greedy selection per batch and class, then the optional sort."""
        boxes, scores = np.asarray(inputs[0]).astype(F32), np.asarray(inputs[1]).astype(F32)
        check(boxes.ndim == 3 and boxes.shape[2] == 5 and scores.ndim == 3 and scores.shape[0] == boxes.shape[0]
              and scores.shape[2] == boxes.shape[1], f"'boxes' [B, N, 5] and 'scores' [B, C, N] do not match. Got: "
              f"{list(boxes.shape)} and {list(scores.shape)}")

        def scalar(position: int) -> float:
            return float(np.asarray(inputs[position]).reshape(-1)[0])

        limit = min(max(int(scalar(2)), 0), boxes.shape[1])
        iou_threshold, score_threshold = F32(scalar(3)), F32(scalar(4))
        if not self.clockwise:
            boxes = boxes.copy()
            boxes[..., 4] = -boxes[..., 4]
        found: list[tuple[int, int, int, F32]] = []
        for batch in range(scores.shape[0]):
            for klass in range(scores.shape[1]):
                for index, score in select_class(boxes[batch], scores[batch, klass], limit, iou_threshold,
                                                 score_threshold, F32(0), overlap=rotated_iou):
                    found.append((batch, klass, index, score))
        if self.sort_result_descending and found:
            order = np.lexsort(([f[2] for f in found], [f[1] for f in found], [f[0] for f in found],
                                [-f[3] for f in found]))
            found = [found[i] for i in order]
        dtype = self.output_type.numpy_dtype
        indices = np.array([f[:3] for f in found], np.int64).reshape(-1, 3).astype(dtype)
        selected = np.array([[f[0], f[1], f[3]] for f in found], F32).reshape(-1, 3)
        return [indices, selected, np.array([len(found)], dtype)]
