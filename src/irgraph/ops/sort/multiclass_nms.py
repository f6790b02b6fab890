"""MulticlassNms-8 and -9: per image and class greedy NMS, then per image ``keep_top_k`` and the sorts.

OpenVINO's reference (``reference/multiclass_nms.cpp``) and its CPU plugin (which says it aligns with it), read
for openvino 2026.4.1, the CPU plugin being the oracle (constant folding leaves the op):

- per image and class (except ``background_class``): candidates have score >= ``score_threshold``, the best
  ``nms_top_k`` of them by score (ties: lower box first) go through greedy NMS; a candidate is dropped when its
  IoU with a kept box of that class is >= the threshold, which ``nms_eta`` < 1 lowers (times eta) after each
  kept box while it is above 0.5. A candidate whose score equals ``score_threshold`` is compared with the
  newest kept box only (the reference's loop stops there). IoU adds 1 to widths and heights unless
  ``normalized``; boxes with no area overlap nothing.
- per image, the kept boxes sorted by score (then class, then box), cut to ``keep_top_k``, then by class when
  ``sort_result_type`` is classid; with ``sort_result_across_batch`` all images sorted together (score: score,
  image, class, box; classid: class, image, score, box).
- outputs: ``[M, 6]`` (class, score, the box's four values as given), ``[M, 1]`` indices and ``[B]`` counts.
  Indices are ``image * num_boxes + box`` for shared boxes (``scores [B, C, N]``); with MulticlassNms-9's
  ``roisnum`` (``boxes [C, N, 4]``, ``scores [C, N]``, images as consecutive runs of ``roisnum[i]`` boxes) they
  are ``(first box of the image + box) * num_classes + class``, the reference's formula.

OpenVINO compares scores within 1e-6 as equal when it sorts (a comparator that is not a strict weak order):
irgraph sorts by exact score, the same order unless two kept scores are that close.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32
SORT_TYPES = ("none", "score", "classid")
OUTPUT_TYPES = (ElementType.I32, ElementType.I64)

Kept = tuple[int, int, int, F32, np.ndarray]
"""(image, class, box index within the image, score, the box's four values)."""


def iou_many(box: np.ndarray, others: np.ndarray, norm: F32) -> np.ndarray:
    """IoU of one box with each of ``others`` in f32, as the reference computes it (0 where an area is not
    positive; ``norm`` is 1 for unnormalized boxes)."""
    area = (box[2] - box[0] + norm) * (box[3] - box[1] + norm)
    areas = (others[:, 2] - others[:, 0] + norm) * (others[:, 3] - others[:, 1] + norm)
    height = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + norm, F32(0))
    width = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + norm, F32(0))
    intersection = height * width
    with np.errstate(invalid="ignore", divide="ignore"):
        result = intersection / (area + areas - intersection)
    return np.where((area <= 0) | (areas <= 0), F32(0), result).astype(F32)


def check_shared_attributes(op: Any) -> None:
    """The attribute checks MulticlassNms and MatrixNms share, with OpenVINO's messages."""
    check(op.sort_result_type.lower() in SORT_TYPES, f"Attribute 'sort_result_type' must be none, score or "
          f"classid. Got: {op.sort_result_type!r}")
    check(op.output_type in OUTPUT_TYPES, f"Output type must be i32 or i64. Got: {op.output_type}")
    check(op.nms_top_k >= -1, f"The 'nms_top_k' must be great or equal -1. Got: {op.nms_top_k}")
    check(op.keep_top_k >= -1, f"The 'keep_top_k' must be great or equal -1. Got: {op.keep_top_k}")
    check(op.background_class >= -1, f"The 'background_class' must be great or equal -1. Got: "
          f"{op.background_class}")


@dataclass(frozen=True)
class _MulticlassNms(Op):
    """Both versions (module docstring)."""

    type_name = "MulticlassNms"
    inputs = Inputs.of(InputSpec("boxes"), InputSpec("scores"))
    tolerance = Tolerance(ulp=4)

    sort_result_type: str = attribute("none")
    output_type: ElementType = attribute(ElementType.I64)
    nms_top_k: int = attribute(-1)
    keep_top_k: int = attribute(-1)
    sort_result_across_batch: bool = attribute(False)
    iou_threshold: float = attribute(0.0)
    score_threshold: float = attribute(0.0)
    background_class: int = attribute(-1)
    nms_eta: float = attribute(1.0)
    normalized: bool = attribute(True)

    def __post_init__(self) -> None:
        check_shared_attributes(self)
        check(0.0 <= self.nms_eta <= 1.0, f"The 'nms_eta' must be in close range [0, 1.0]. Got: {self.nms_eta}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Selected outputs, selected indices, counts per image."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[0..bound, 6]``, ``[0..bound, 1]`` and ``[B]``; the bound from nms_top_k, the classes, keep_top_k
        and the images, by upper bounds (OpenVINO's rule)."""
        roisnum = len(inputs) == 3
        boxes, scores = inputs[:2]
        for tensor, name in ((boxes, "boxes"), (scores, "scores")):
            check(tensor.element_type.is_dynamic or tensor.element_type.is_real,
                  f"Expected floating point type as element type for the '{name}' input. Got: {tensor.element_type}")
        check(boxes.shape.rank_is_dynamic or boxes.shape.rank == 3, f"Expected a 3D tensor for the 'boxes' input. "
              f"Got: {boxes.shape}")
        scores_rank = 2 if roisnum else 3
        check(scores.shape.rank_is_dynamic or scores.shape.rank == scores_rank,
              f"Expected a {scores_rank}D tensor for the 'scores' input. Got: {scores.shape}")
        if roisnum:
            check(inputs[2].element_type.is_dynamic or inputs[2].element_type in OUTPUT_TYPES,
                  f"Expected integer type as element type for the 'roisnum' input. Got: {inputs[2].element_type}")
            check(inputs[2].shape.rank_is_dynamic or inputs[2].shape.rank == 1,
                  f"Expected a 1D tensor for the 'roisnum' input. Got: {inputs[2].shape}")
        rows, images = Dim.dynamic(), Dim.dynamic()
        if not boxes.shape.rank_is_dynamic:
            if not scores.shape.rank_is_dynamic:
                check(boxes.shape[0].compatible(scores.shape[0]), f"The first dimension of both 'boxes' and 'scores' "
                      f"must match. Got: {boxes.shape} and {scores.shape}")
                box_axis = 1 if roisnum else 2
                check(boxes.shape[1].compatible(scores.shape[box_axis]), f"'boxes' and 'scores' input shapes must "
                      f"match at the second and third dimension respectively. Got: {boxes.shape} and {scores.shape}")
            check(boxes.shape[2].compatible(Dim.static(4)), f"The last dimension of the 'boxes' input must be equal "
                  f"to 4. Got: {boxes.shape}")
            counts = inputs[2].shape if roisnum else None
            if not scores.shape.rank_is_dynamic and (counts is None or not counts.rank_is_dynamic):
                classes = boxes.shape[0] if roisnum else scores.shape[1]
                images = counts[0] if counts is not None else boxes.shape[0]
                rows = self._rows(boxes.shape[1], classes, images)
        out_type = boxes.element_type
        return [TensorType(out_type, Shape((rows, Dim.static(6)))), TensorType(self.output_type, Shape((rows,
                Dim.static(1)))), TensorType(self.output_type, Shape((images,)))]

    def _rows(self, boxes: Dim, classes: Dim, images: Dim) -> Dim:
        """``0..bound`` (OpenVINO's Dimension arithmetic on upper bounds; unbounded stays unbounded)."""
        if self.nms_top_k > -1:
            per_class = min(boxes.max, self.nms_top_k) if boxes.max is not None else None
        else:
            per_class = boxes.max
        # the background class counts (OpenVINO's op passes ignore_bg_class=false to its shape rule)
        bound = None if per_class is None or classes.max is None else per_class * classes.max
        if bound is not None and -1 < self.keep_top_k < bound:
            bound = self.keep_top_k
        bound = None if bound is None or images.max is None else bound * images.max
        return Dim(0, bound)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Greedy NMS per image and class, then keep_top_k and the sorts (module docstring)."""
        boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
        if len(inputs) == 3:
            images = self._images_from_counts(boxes, scores, np.asarray(inputs[2]))
        else:
            check(boxes.ndim == 3 and boxes.shape[2] == 4 and scores.ndim == 3 and scores.shape[0] == boxes.shape[0]
                  and scores.shape[2] == boxes.shape[1], f"'boxes' [B, N, 4] and 'scores' [B, C, N] do not match. "
                  f"Got: {list(boxes.shape)} and {list(scores.shape)}")
            images = [(np.broadcast_to(boxes[b], (scores.shape[1], *boxes.shape[1:])), scores[b], b * boxes.shape[1],
                       True) for b in range(boxes.shape[0])]
        kept_all: list[Kept] = []
        counts = []
        for image, (image_boxes, image_scores, _, present) in enumerate(images):
            kept = self._image(image, image_boxes.astype(F32), image_scores.astype(F32)) if present else []
            counts.append(len(kept))
            kept_all.extend(kept)
        kept_all = self._across(kept_all)
        outputs = np.zeros((len(kept_all), 6), boxes.dtype)
        indices = np.zeros((len(kept_all), 1), np.int64)
        classes = boxes.shape[0] if len(inputs) == 3 else scores.shape[1]
        for row, (image, klass, index, score, box) in enumerate(kept_all):
            outputs[row] = np.array([klass, score, *box], F32).astype(boxes.dtype)
            first = images[image][2]
            indices[row, 0] = (first + index) * classes + klass if len(inputs) == 3 else first + index
        dtype = self.output_type.numpy_dtype
        return [outputs, indices.astype(dtype), np.array(counts, dtype)]

    def _images_from_counts(
        self, boxes: np.ndarray, scores: np.ndarray, counts: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray, int, bool]]:
        check(boxes.ndim == 3 and boxes.shape[2] == 4 and scores.ndim == 2 and scores.shape == boxes.shape[:2],
              f"'boxes' [C, N, 4] and 'scores' [C, N] do not match. Got: {list(boxes.shape)} and "
              f"{list(scores.shape)}")
        images, head = [], 0
        for count in counts.reshape(-1).tolist():
            if count <= 0:  # no boxes: the reference does not move on
                images.append((boxes[:, :0], scores[:, :0], head, False))
                continue
            check(head + count <= boxes.shape[1], f"'roisnum' asks for boxes {head}..{head + count - 1} of "
                  f"{boxes.shape[1]}")
            images.append((boxes[:, head:head + count], scores[:, head:head + count], head, True))
            head += count
        return images

    def _image(self, image: int, boxes: np.ndarray, scores: np.ndarray) -> list[Kept]:
        """Greedy NMS for each class of one image (``boxes [C, N, 4]``, ``scores [C, N]``), sorted and cut."""
        norm = F32(0 if self.normalized else 1)
        score_threshold, eta = F32(self.score_threshold), F32(self.nms_eta)
        kept: list[Kept] = []
        for klass in range(scores.shape[0]):
            if klass == self.background_class:
                continue
            class_scores = scores[klass]
            candidates = np.flatnonzero(class_scores >= score_threshold)
            order = candidates[np.lexsort((candidates, -class_scores[candidates]))]
            if self.nms_top_k > -1:
                order = order[:self.nms_top_k]
            threshold = F32(self.iou_threshold)
            chosen: list[int] = []
            for index in order.tolist():  # each kept box changes what the next one is compared with
                if chosen:
                    against = chosen[-1:] if class_scores[index] <= score_threshold else chosen
                    if bool(np.any(iou_many(boxes[klass, index], boxes[klass, against], norm) >= threshold)):
                        continue
                if eta < 1 and threshold > 0.5:
                    threshold = F32(threshold * eta)
                chosen.append(index)
            kept.extend((image, klass, i, class_scores[i], boxes[klass, i]) for i in chosen)
        kept = [kept[i] for i in np.lexsort(([k[2] for k in kept], [k[1] for k in kept],
                                             [-k[3] for k in kept]))] if kept else kept
        if self.keep_top_k > -1:
            kept = kept[:self.keep_top_k]
        if not self.sort_result_across_batch and self.sort_result_type.lower() == "classid" and kept:
            kept = [kept[i] for i in np.lexsort(([k[2] for k in kept], [-k[3] for k in kept],
                                                 [k[1] for k in kept]))]
        return kept

    def _across(self, kept: list[Kept]) -> list[Kept]:
        """The sort across images, when asked for."""
        sort = self.sort_result_type.lower()
        if not self.sort_result_across_batch or sort == "none" or not kept:
            return kept
        by_image, by_class, by_box, by_score = (np.array([k[i] for k in kept]) for i in range(4))
        keys = (by_box, by_class, by_image, -by_score) if sort == "score" else (by_box, -by_score, by_image, by_class)
        return [kept[i] for i in np.lexsort(keys)]


@register
@dataclass(frozen=True)
class MulticlassNms8(_MulticlassNms):
    """MulticlassNms-8: shared boxes only. Spec: MulticlassNms-8."""

    introduced = 8


@register
@dataclass(frozen=True)
class MulticlassNms(_MulticlassNms):
    """MulticlassNms-9: an optional ``roisnum`` input (per-class boxes, images as runs of boxes).
    Spec: MulticlassNms-9."""

    introduced = 9
    inputs = Inputs.optional(2, InputSpec("boxes"), InputSpec("scores"), InputSpec("roisnum"))
