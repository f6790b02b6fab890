"""MatrixNms-8: Matrix NMS (SOLOv2): every candidate's score decays by its IoU with the higher-scored ones.

OpenVINO's reference (``reference/matrix_nms.cpp``), checked against openvino 2026.4.1's CPU plugin (constant
folding leaves the op):

- per image and class (except ``background_class``): candidates have score > ``score_threshold``, the best
  ``nms_top_k`` by score; candidate ``i`` keeps ``score * min_j decay(iou(i, j), max_iou(j))`` over the
  higher-scored ``j``, where ``max_iou(j)`` is ``j``'s largest IoU with the candidates above it; ``linear``
  decay is ``(1 - iou) / (1 - max_iou + 1e-10)`` (in float: openvino 2026.4.1's CPU plugin gives float results,
  where the source reads as double arithmetic), ``gaussian``
  ``exp((max_iou^2 - iou^2) * gaussian_sigma)``; candidates whose decayed score is <= ``post_threshold`` go.
  IoU adds 1 to widths and heights unless ``normalized``; boxes with a corner order reversed have no area.
- per image, the rest sorted by decayed score (then class, then box) and cut to ``keep_top_k``; with
  ``sort_result_across_batch`` all images sorted together by score or class, as MulticlassNms does.
- outputs: ``[M, 6]`` (class, decayed score, the box as given), ``[M, 1]`` ``image * num_boxes + box``, ``[B]``.
  When nothing at all is kept the CPU plugin fails ("Total number of boxes is less or equal than 0"); irgraph
  returns the empty outputs and zero counts. ``exp`` is computed in f64 and rounded (glibc's ``expf`` may differ
  in the last bit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.sort.multiclass_nms import MulticlassNms8, check_shared_attributes

F32 = np.float32
DECAYS = ("linear", "gaussian")


def _area(boxes: np.ndarray, norm: F32) -> np.ndarray:
    """Areas in f32; 0 where the corners are reversed."""
    reversed_ = (boxes[..., 2] < boxes[..., 0]) | (boxes[..., 3] < boxes[..., 1])
    area = (boxes[..., 2] - boxes[..., 0] + norm) * (boxes[..., 3] - boxes[..., 1] + norm)
    return np.where(reversed_, F32(0), area).astype(F32)


def iou_matrix(boxes: np.ndarray, norm: F32) -> np.ndarray:
    """``[n, n]`` IoU of every pair, as the reference computes it in f32 (0 for boxes that do not touch)."""
    a, b = boxes[:, None, :], boxes[None, :, :]
    apart = (b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3]) | (b[..., 3] < a[..., 1])
    width = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + norm
    height = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + norm
    inter = (width * height).astype(F32)
    areas = _area(boxes, norm)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = inter / ((areas[:, None] + areas[None, :]) - inter)
    return np.where(apart, F32(0), result).astype(F32)


@register
@dataclass(frozen=True)
class MatrixNms(Op):
    """Matrix NMS per image and class with decayed scores (module docstring). Spec: MatrixNms-8."""

    type_name = "MatrixNms"
    introduced = 8
    inputs = Inputs.of(InputSpec("boxes"), InputSpec("scores"))
    tolerance = Tolerance(ulp=4)

    sort_result_type: str = attribute("none")
    output_type: ElementType = attribute(ElementType.I64)
    nms_top_k: int = attribute(-1)
    keep_top_k: int = attribute(-1)
    sort_result_across_batch: bool = attribute(False)
    score_threshold: float = attribute(0.0)
    background_class: int = attribute(-1)
    decay_function: str = attribute("linear")
    gaussian_sigma: float = attribute(2.0)
    post_threshold: float = attribute(0.0)
    normalized: bool = attribute(True)

    def __post_init__(self) -> None:
        check_shared_attributes(self)
        check(self.decay_function.lower() in DECAYS, f"Attribute 'decay_function' must be linear or gaussian. "
              f"Got: {self.decay_function!r}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Selected outputs, selected indices, counts per image."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[0..bound, 6]``, ``[0..bound, 1]``, ``[B]`` as for MulticlassNms (OpenVINO's shared rule)."""
        shared = MulticlassNms8(sort_result_type=self.sort_result_type, output_type=self.output_type,
                                nms_top_k=self.nms_top_k, keep_top_k=self.keep_top_k,
                                background_class=self.background_class)
        types = shared.infer(inputs, values)
        boxes = inputs[0].shape
        if not boxes.rank_is_dynamic:  # the count is [B] from the boxes alone (MulticlassNms needs the scores too)
            types[2] = TensorType(self.output_type, Shape((boxes[0],)))
        return types

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Matrix NMS per image and class, keep_top_k, the sorts (module docstring)."""
        boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
        check(boxes.ndim == 3 and boxes.shape[2] == 4 and scores.ndim == 3 and scores.shape[0] == boxes.shape[0]
              and scores.shape[2] == boxes.shape[1], f"'boxes' [B, N, 4] and 'scores' [B, C, N] do not match. "
              f"Got: {list(boxes.shape)} and {list(scores.shape)}")
        kept: list[tuple[int, int, int, F32]] = []
        counts = []
        for image in range(boxes.shape[0]):
            found = self._image(image, boxes[image].astype(F32), scores[image].astype(F32))
            counts.append(len(found))
            kept.extend(found)
        sort = self.sort_result_type.lower()
        if self.sort_result_across_batch and sort != "none" and kept:
            by_image, by_class, by_box, by_score = (np.array([k[i] for k in kept]) for i in range(4))
            keys = ((by_box, by_class, by_image, -by_score) if sort == "score"
                    else (by_box, -by_score, by_image, by_class))
            kept = [kept[i] for i in np.lexsort(keys)]
        outputs = np.zeros((len(kept), 6), boxes.dtype)
        indices = np.zeros((len(kept), 1), np.int64)
        for row, (image, klass, index, score) in enumerate(kept):
            outputs[row] = np.array([klass, score, *boxes[image, index].astype(F32)], F32).astype(boxes.dtype)
            indices[row, 0] = image * boxes.shape[1] + index
        dtype = self.output_type.numpy_dtype
        return [outputs, indices.astype(dtype), np.array(counts, dtype)]

    def _image(self, image: int, boxes: np.ndarray, scores: np.ndarray) -> list[tuple[int, int, int, F32]]:
        norm = F32(0 if self.normalized else 1)
        score_threshold, post_threshold = F32(self.score_threshold), F32(self.post_threshold)
        found: list[tuple[int, int, int, F32]] = []
        for klass in range(scores.shape[0]):
            if klass == self.background_class:
                continue
            class_scores = scores[klass]
            candidates = np.flatnonzero(class_scores > score_threshold)
            order = candidates[np.lexsort((candidates, -class_scores[candidates]))]
            if self.nms_top_k > -1:
                order = order[:self.nms_top_k]
            if order.size == 0:
                continue
            ious = iou_matrix(boxes[order], norm)
            below = np.tril(np.ones((order.size, order.size), bool), k=-1)  # j above i in score
            max_iou = np.where(below, ious, F32(0)).max(axis=1).astype(F32)  # each candidate's max over those above
            decay = self._decay(ious, max_iou[None, :])
            smallest = np.where(below, decay, F32(1)).min(axis=1).astype(F32)
            decayed = (np.minimum(smallest, F32(1)) * class_scores[order]).astype(F32)
            for position in np.flatnonzero(decayed > post_threshold).tolist():
                found.append((image, klass, int(order[position]), decayed[position]))
        if found:
            found = [found[i] for i in np.lexsort(([f[2] for f in found], [f[1] for f in found],
                                                   [-f[3] for f in found]))]
        return found[:self.keep_top_k] if self.keep_top_k > -1 else found

    def _decay(self, iou: np.ndarray, max_iou: np.ndarray) -> np.ndarray:
        """``decay(iou[i, j], max_iou[j])`` for every pair, in f32 as the reference rounds it."""
        if self.decay_function.lower() == "gaussian":
            exponent = ((max_iou * max_iou - iou * iou) * F32(self.gaussian_sigma)).astype(F32)
            return np.exp(exponent.astype(np.float64)).astype(F32)
        with np.errstate(divide="ignore", invalid="ignore"):  # in float, as the CPU plugin's results show
            return ((F32(1) - iou) / (F32(1) - max_iou + F32(1e-10))).astype(F32)
