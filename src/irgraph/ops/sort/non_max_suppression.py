"""NonMaxSuppression-9: greedy (or soft) non-maximum suppression of boxes per batch and class."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

ENCODINGS = ("corner", "center")
OUTPUT_TYPES = (ElementType.I32, ElementType.I64)
F32 = np.float32


def corners(boxes: np.ndarray, encoding: str) -> np.ndarray:
    """``[..., 4]`` boxes as ``(y1, x1, y2, x2)`` with y1 <= y2 and x1 <= x2, in f32 as OpenVINO
    prepares them: corner boxes are ordered per coordinate, center boxes ``(xc, yc, w, h)`` expand."""
    b = boxes.astype(F32)
    if encoding == "center":
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        half_h, half_w = h / F32(2), w / F32(2)
        return np.stack([yc - half_h, xc - half_w, yc + half_h, xc + half_w], axis=-1)
    y1, x1, y2, x2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)], axis=-1)


def iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of one corner box with each of ``others``, in f32 as the reference
    computes it (0 where either area is not positive)."""
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    height = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]), F32(0))
    width = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]), F32(0))
    intersection = height * width
    with np.errstate(invalid="ignore", divide="ignore"):
        result = intersection / (area + areas - intersection)
    return np.where((area <= 0) | (areas <= 0), F32(0), result).astype(F32)


def select_class(boxes: np.ndarray, scores: np.ndarray, limit: int, iou_threshold: F32, score_threshold: F32,
                 sigma: F32, inclusive: bool = False,
                 overlap: Callable[[np.ndarray, np.ndarray], np.ndarray] = iou) -> list[tuple[int, F32]]:
    """The (box index, score) pairs one class keeps, in selection order: OpenVINO's reference loop
    (a max-heap on score, ties to the lower index; soft-NMS decays a candidate by exp(-iou^2 / 2 sigma)
    against the boxes selected since it was last looked at, and puts it back unless it fell to the
    threshold). Each step compares one candidate with the selected boxes at once. ``inclusive`` is
    NMS-5's rule: iou >= threshold suppresses, soft-NMS included; NMS-9 suppresses at iou > threshold
    and never in soft mode. ``overlap`` is the IoU of one box with each of others (NMSRotated's rotated IoU)."""
    soft = sigma > 0
    scale = F32(-0.5) / sigma if soft else F32(0)
    heap = [(-F32(s), int(i), 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    chosen: list[int] = []
    kept: list[tuple[int, F32]] = []
    chosen_boxes = np.zeros((0, boxes.shape[-1]), boxes.dtype)
    while heap and len(kept) < limit:
        negative, index, begin = heapq.heappop(heap)
        original = F32(-negative)
        score = original
        suppressed = False
        if begin < len(chosen):
            overlaps = overlap(boxes[index], chosen_boxes[begin:][::-1])  # newest first, as the reference walks
            weights = np.exp(scale * overlaps * overlaps).astype(F32)
            if inclusive or not soft:
                weights = np.where(overlaps <= iou_threshold, weights, F32(0))
            running = np.multiply.accumulate(np.concatenate([[original], weights]).astype(F32))[1:]
            if inclusive:
                hard = overlaps >= iou_threshold
            else:
                hard = (overlaps > iou_threshold) if not soft else np.zeros(overlaps.shape, bool)
            stop = hard | (running <= score_threshold)
            at = int(np.argmax(stop)) if stop.any() else overlaps.size - 1
            score = F32(running[at])
            suppressed = bool(hard[at]) if stop.any() else False
        if suppressed:
            continue
        if score == original:
            chosen.append(index)
            kept.append((index, score))
            chosen_boxes = np.concatenate([chosen_boxes, boxes[index][None]])
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, len(chosen)))
    return kept


@dataclass(frozen=True)
class _Suppression(Op):
    """What every version shares: the two box encodings, the greedy selection per batch and class (ties to
    the lower box index) and the optional sort of the selected boxes by score, then batch, class and box."""

    type_name = "NonMaxSuppression"
    INCLUSIVE: ClassVar[bool] = False
    tolerance = Tolerance(ulp=4)

    box_encoding: str = attribute("corner")
    sort_result_descending: bool = attribute(True)

    def __post_init__(self) -> None:
        check(self.box_encoding in ENCODINGS, f"Attribute 'box_encoding' must be corner or center. Got: "
              f"{self.box_encoding!r}")
        check(self.output_type in OUTPUT_TYPES, f"Output type must be i32 or i64. Got: {self.output_type}")

    @property
    def output_type(self) -> ElementType:  # overridden by the versions that have the attribute
        """The index type (i64 for NonMaxSuppression-1, which has no attribute for it)."""
        return ElementType.I64

    def select(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, int, int, F32]]:
        """(batch, class, box, score) of every kept box: :func:`select_class` for every batch and class, then
        the optional sort by score."""
        boxes, scores = inputs[:2]
        check(boxes.ndim == 3 and boxes.shape[2] == 4 and scores.ndim == 3 and scores.shape[0] == boxes.shape[0]
              and scores.shape[2] == boxes.shape[1],
              f"'boxes' [B, N, 4] and 'scores' [B, C, N] do not match. Got: {list(boxes.shape)} and "
              f"{list(scores.shape)}")

        def scalar(position: int, default: float) -> float:
            return float(np.asarray(inputs[position]).reshape(-1)[0]) if len(inputs) > position else default

        limit = min(max(int(scalar(2, 0)), 0), boxes.shape[1])
        iou_threshold, score_threshold, sigma = F32(scalar(3, 0)), F32(scalar(4, 0)), F32(scalar(5, 0))
        prepared = corners(boxes, self.box_encoding)
        found: list[tuple[int, int, int, F32]] = []
        for batch in range(scores.shape[0]):  # one greedy selection per (batch, class)
            for klass in range(scores.shape[1]):
                for index, score in select_class(prepared[batch], scores[batch, klass].astype(F32), limit,
                                                 iou_threshold, score_threshold, sigma, self.INCLUSIVE):
                    found.append((batch, klass, index, score))
        if self.sort_result_descending and found:
            order = np.lexsort(([f[2] for f in found], [f[1] for f in found], [f[0] for f in found],
                                [-f[3] for f in found]))
            found = [found[i] for i in order]
        return found


@dataclass(frozen=True)
class NonMaxSuppressionBase(_Suppression):
    """Per batch and class, boxes over ``score_threshold`` kept greedily by score unless their IoU with a
    kept box exceeds ``iou_threshold`` (soft-NMS with ``soft_nms_sigma`` > 0 decays scores instead), at
    most ``max_output_boxes_per_class`` each. Outputs ``[M, 3]`` (batch, class, box), ``[M, 3]``
    (batch, class, score) and ``[1]`` (M), M known only when run; ``sort_result_descending`` orders
    them by score, then batch, class and box."""

    inputs = Inputs.optional(
        2, InputSpec("boxes"), InputSpec("scores"),
        InputSpec("max_output_boxes_per_class"),
        InputSpec("iou_threshold"),
        InputSpec("score_threshold"),
        InputSpec("soft_nms_sigma"),
    )

    output_type: ElementType = attribute(ElementType.I64)

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Selected indices, selected scores, valid count."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[0..min(N, max_boxes) * B * C, 3]`` twice and ``[1]``."""
        boxes, scores = inputs[:2]
        check(boxes.element_type.is_dynamic or boxes.element_type.is_real,
              f"Expected floating point type as element type for the 'boxes' input. Got: {boxes.element_type}")
        check(boxes.shape.rank_is_dynamic or boxes.shape.rank == 3, f"Expected a 3D tensor for the 'boxes' input. "
              f"Got: {boxes.shape}")
        check(scores.shape.rank_is_dynamic or scores.shape.rank == 3, f"Expected a 3D tensor for the 'scores' "
              f"input. Got: {scores.shape}")
        for index, name in enumerate(("max_output_boxes_per_class", "iou_threshold", "score_threshold",
                                      "soft_nms_sigma"), start=2):
            if index < len(inputs):
                shape = inputs[index].shape
                check(shape.rank_is_dynamic or shape.rank == 0 or (shape.rank == 1 and shape[0].contains(1)),
                      f"Expected 0D or 1D tensor for the '{name}' input. Got: {shape}")
        if not boxes.shape.rank_is_dynamic and not scores.shape.rank_is_dynamic:
            check(boxes.shape[2].compatible(Dim.static(4)), f"The last dimension of the 'boxes' input must be equal "
                  f"to 4. Got: {boxes.shape}")
            check(boxes.shape[0].compatible(scores.shape[0]) and boxes.shape[1].compatible(scores.shape[2]),
                  f"'boxes' and 'scores' input shapes must match. Got: {boxes.shape} and {scores.shape}")
        count = Dim.dynamic()
        limit = values[2] if len(values) > 2 else np.zeros(())
        if limit is not None and not boxes.shape.rank_is_dynamic and not scores.shape.rank_is_dynamic:
            per_class = max(int(np.asarray(limit).reshape(-1)[0]), 0) if np.size(limit) else 0
            boxes_max, batch_max, classes_max = boxes.shape[1].max, scores.shape[0].max, scores.shape[1].max
            if boxes_max is not None and batch_max is not None and classes_max is not None:
                count = Dim(0, min(per_class, boxes_max) * batch_max * classes_max)
        score_type = boxes.element_type
        rows = Shape((count, Dim.static(3)))
        return [TensorType(self.output_type, rows), TensorType(score_type, rows),
                TensorType(self.output_type, Shape((Dim.static(1),)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`select`, as indices, scores and their count."""
        boxes = inputs[0]
        found = self.select(inputs)
        indices = np.array([f[:3] for f in found], np.int64).reshape(-1, 3)
        selected_scores = np.array([[f[0], f[1], f[3]] for f in found], F32).reshape(-1, 3)
        return [indices.astype(self.output_type.numpy_dtype), selected_scores.astype(boxes.dtype),
                np.array([len(found)], self.output_type.numpy_dtype)]


@register
@dataclass(frozen=True)
class NonMaxSuppression5(NonMaxSuppressionBase):
    """NonMaxSuppression-5: a box is suppressed at iou >= iou_threshold, in soft mode too. Spec:
    NonMaxSuppression-5."""

    introduced = 5
    INCLUSIVE = True


@register
@dataclass(frozen=True)
class NonMaxSuppression(NonMaxSuppressionBase):
    """NonMaxSuppression-9: a box is suppressed at iou > iou_threshold, never in soft mode. Spec:
    NonMaxSuppression-9."""

    introduced = 9


@dataclass(frozen=True)
class _LegacySuppression(_Suppression):
    """NonMaxSuppression-1, -3 and -4: one output, ``[rows, 3]`` (batch, class, box), where ``rows`` is
    OpenVINO's static bound when the shapes and ``max_output_boxes_per_class`` are known (the selected rows
    first, then rows of -1, as the NMS-4 spec says); a box is suppressed at iou >= ``iou_threshold`` (the
    NMS-5 rule OpenVINO converts these versions to), so the default threshold 0 keeps one box per class.
    openvino 2026.4.1's CPU plugin returns only the selected rows, against its own shape inference."""

    INCLUSIVE = True
    inputs = Inputs.optional(
        2, InputSpec("boxes"), InputSpec("scores"),
        InputSpec("max_output_boxes_per_class"),
        InputSpec("iou_threshold"),
        InputSpec("score_threshold"),
    )

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Selected indices only."""
        return 1

    def rows(self, boxes: Shape, scores: Shape, limit: int | None) -> Dim:
        """The first output dim from the input shapes and the limit (None when it is not constant)."""
        raise NotImplementedError

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[rows, 3]`` (:meth:`rows`): OpenVINO's checks, scalars only for the optional inputs."""
        boxes, scores = inputs[:2]
        check(boxes.shape.rank_is_dynamic or boxes.shape.rank == 3, f"Expected a 3D tensor for the 'boxes' input. "
              f"Got: {boxes.shape}")
        check(scores.shape.rank_is_dynamic or scores.shape.rank == 3, f"Expected a 3D tensor for the 'scores' "
              f"input. Got: {scores.shape}")
        for index, name in enumerate(("max_output_boxes_per_class", "iou_threshold", "score_threshold"), start=2):
            if index < len(inputs):
                shape = inputs[index].shape
                check(shape.rank_is_dynamic or shape.rank == 0, f"Expected a scalar for the '{name}' input. Got: "
                      f"{shape}")
        if not boxes.shape.rank_is_dynamic:
            if not scores.shape.rank_is_dynamic:
                check(boxes.shape[0].compatible(scores.shape[0]), f"The first dimension of both 'boxes' and "
                      f"'scores' must match. Got: {boxes.shape} and {scores.shape}")
                check(boxes.shape[1].compatible(scores.shape[2]), f"'boxes' and 'scores' input shapes must match "
                      f"at the second and third dimension respectively. Got: {boxes.shape} and {scores.shape}")
            check(boxes.shape[2].compatible(Dim.static(4)), f"The last dimension of the 'boxes' input must be equal "
                  f"to 4. Got: {boxes.shape}")
        limit = None
        if len(values) > 2 and values[2] is not None:
            limit = int(np.asarray(values[2]).reshape(-1)[0]) if np.size(values[2]) else None
        elif len(inputs) <= 2:
            limit = 0
        return [TensorType(self.output_type, Shape((self.rows(boxes.shape, scores.shape, limit), Dim.static(3))))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`select`; the selected rows, then -1 rows up to the static row count (all the selected rows
        when they are more, as the CPU plugin returns them: NMS-1/3's bound leaves out the batch)."""
        found = self.select(inputs)
        limit = int(float(np.asarray(inputs[2]).reshape(-1)[0])) if len(inputs) > 2 else 0
        bound = self.rows(Shape.static(inputs[0].shape), Shape.static(inputs[1].shape), limit)
        rows = max(bound.value if bound.is_static else 0, len(found))
        indices = np.full((rows, 3), -1, np.int64)
        indices[:len(found)] = np.array([f[:3] for f in found], np.int64).reshape(-1, 3)
        return [indices.astype(self.output_type.numpy_dtype)]


@register
@dataclass(frozen=True)
class NonMaxSuppression1(_LegacySuppression):
    """NonMaxSuppression-1: i64 indices, ``rows = min(num_boxes, max_output_boxes_per_class * num_classes)``
    (OpenVINO's rule: it leaves out the batch). Spec: NonMaxSuppression-1."""

    introduced = 1

    def rows(self, boxes: Shape, scores: Shape, limit: int | None) -> Dim:
        """``min(N, limit * C)`` when both are static, else dynamic."""
        if boxes.rank_is_dynamic:
            return Dim.dynamic()
        if limit is None or limit < 0 or not boxes[1].is_static:
            return Dim.dynamic()
        per_class = limit
        if not scores.rank_is_dynamic:
            if not scores[1].is_static:
                return Dim.dynamic()
            per_class *= scores[1].value
        return Dim.static(min(boxes[1].value, per_class))


@register
@dataclass(frozen=True)
class NonMaxSuppression3(NonMaxSuppression1):
    """NonMaxSuppression-3: NonMaxSuppression-1 with ``output_type``. Spec: NonMaxSuppression-3."""

    introduced = 3

    output_type: ElementType = attribute(ElementType.I64)


@register
@dataclass(frozen=True)
class NonMaxSuppression4(NonMaxSuppression3):
    """NonMaxSuppression-4: ``rows = min(num_boxes, max_output_boxes_per_class) * num_batches * num_classes``
    (the batch and class counts by their upper bounds). Spec: NonMaxSuppression-4."""

    introduced = 4

    def rows(self, boxes: Shape, scores: Shape, limit: int | None) -> Dim:
        """``min(N, limit) * max(B) * max(C)`` when both ranks, N, the limit and the upper bounds are known."""
        if boxes.rank_is_dynamic or scores.rank_is_dynamic or not boxes[1].is_static or limit is None or limit < 0:
            return Dim.dynamic()
        selected = min(boxes[1].value, limit)
        for dim in (scores[0], scores[1]):
            if dim.max is None:
                return Dim.dynamic()
            selected *= dim.max
        return Dim.static(selected)
