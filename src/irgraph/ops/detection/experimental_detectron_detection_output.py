"""ExperimentalDetectronDetectionOutput-6: Mask R-CNN's box head: per-class box refinement, NMS, the best boxes.

OpenVINO's reference (``reference/experimental_detectron_detection_output.cpp``, openvino 2026.4.1; it neither
folds nor evaluates the op there), quirks included:

- it reads ``max_detections_per_image`` rois (not the input's count): irgraph uses that many and refuses fewer;
- a roi with no positive width or height is skipped (its refined boxes, areas and scores stay 0);
- for each class from 1: deltas ``[roi, class * 4 + k]`` divided by ``deltas_weights``, log sizes capped at
  ``max_delta_log_wh``, sizes + 1, the far corner minus 1, corners clamped at 0 only (not to the image);
  ``class_agnostic_box_regression`` is not used;
- per class: scores > ``score_threshold`` sorted by score then roi, greedy NMS (IoU with sizes + 1 and the
  refined areas, dropped when > ``nms_threshold``), cut to ``post_nms_count``;
- when more than ``max_detections_per_image`` in all: sorted by score then roi (OpenVINO's partial_sort leaves
  equal pairs of other classes unordered; irgraph keeps the lower class first) and cut; otherwise they stay in
  class order, each class's in NMS order;
- outputs ``[max_detections_per_image, 4]`` boxes, i32 classes and scores, zeros after the last detection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32


def jaccard_plus_one(box: np.ndarray, area: np.float32, others: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """The reference's ``JaccardOverlap`` (offset 1, areas given) of one box with each of ``others``."""
    apart = (others[:, 0] > box[2]) | (others[:, 2] < box[0]) | (others[:, 1] > box[3]) | (others[:, 3] < box[1])
    width = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + F32(1)
    height = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + F32(1)
    with np.errstate(all="ignore"):
        intersection = width * height
        iou = intersection / (area + areas - intersection)
    return np.where(apart | (width <= 0) | (height <= 0), F32(0), iou)


@register
@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class ExperimentalDetectronDetectionOutput(Op):
    """Mask R-CNN's detections (module docstring). Spec: ExperimentalDetectronDetectionOutput-6."""

    type_name = "ExperimentalDetectronDetectionOutput"
    introduced = 6
    inputs = Inputs.of(InputSpec("input_rois"), InputSpec("input_deltas"), InputSpec("input_scores"),
                       InputSpec("input_im_info"))
    # one ULP of exp(delta) times a box side of tens of pixels, then centre - w / 2 cancels near 0
    tolerance = Tolerance(ulp=4, eps=64)

    score_threshold: float = attribute()
    nms_threshold: float = attribute()
    max_delta_log_wh: float = attribute()
    num_classes: int = attribute()
    post_nms_count: int = attribute()
    max_detections_per_image: int = attribute()
    class_agnostic_box_regression: bool = attribute(False)
    deltas_weights: tuple[float, ...] = attribute()

    def __post_init__(self) -> None:
        check(len(self.deltas_weights) == 4, f"deltas_weights must hold 4 values. Got: {list(self.deltas_weights)}")
        check(self.max_detections_per_image > 0, "max_detections_per_image must be positive. Got: "
              f"{self.max_detections_per_image}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Boxes, classes, scores."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[max_detections_per_image, 4]``, ``[max_detections_per_image]`` i32 and of the rois' type."""
        rois, deltas, scores, info = (t.shape for t in inputs)
        for shape, columns, name, text in (
                (rois, 4, "rois", "The last dimension of the 'input_rois' input must be compatible with 4."),
                (deltas, self.num_classes * 4, "deltas", "The last dimension of the 'input_deltas' input be "
                 "compatible with the value of the attribute 'num_classes' * 4."),
                (scores, self.num_classes, "scores", "The last dimension of the 'input_scores' input must be "
                 "compatible withthe value of the attribute 'num_classes'.")):
            if shape.rank_is_dynamic:
                continue
            check(shape.rank == 2, f"Input {name} rank must be equal to 2.")
            check(shape[1].compatible(Dim.static(columns)), f"{text} Got: {shape[1]}")
        check(info.compatible(Shape((Dim.static(1), Dim.static(3)))),
              f"Input image info shape must be compatible with [1,3]. Got: {info}")
        if not any(s.rank_is_dynamic for s in (rois, deltas, scores)):
            merged = rois[0].merge(deltas[0])
            check(merged is not None and merged.merge(scores[0]) is not None, "The first dimension of inputs "
                  f"'input_rois', 'input_deltas', 'input_scores' must be the compatible. input_rois batch: "
                  f"{rois[0]}; input_deltas batch: {deltas[0]}; input_scores batch: {scores[0]}")
        rows = Dim.static(self.max_detections_per_image)
        out_type = inputs[0].element_type
        return [TensorType(out_type, Shape((rows, Dim.static(4)))), TensorType(ElementType.I32, Shape((rows,))),
                TensorType(out_type, Shape((rows,)))]

    def _refine(self, rois: np.ndarray, deltas: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
        """Boxes ``[C, R, 4]``, areas and scores ``[C, R]`` (class 0 and skipped rois zero)."""
        count, classes = len(rois), self.num_classes
        one, half = F32(1), F32(0.5)
        x0, y0, x1, y1 = (rois[:, k:k + 1] for k in range(4))
        valid = ((x1 - x0) > 0) & ((y1 - y0) > 0)  # [R, 1]
        ww, hh = x1 - x0 + one, y1 - y0 + one
        centre_x, centre_y = x0 + half * ww, y0 + half * hh
        d = deltas.reshape(count, classes, 4)[:, 1:]  # [R, C - 1, 4]
        weights = np.asarray(self.deltas_weights, F32)
        cap = F32(self.max_delta_log_wh)
        with np.errstate(all="ignore"):
            dx, dy = d[..., 0] / weights[0], d[..., 1] / weights[1]
            dw, dh = d[..., 2] / weights[2], d[..., 3] / weights[3]
            pred_x, pred_y = dx * ww + centre_x, dy * hh + centre_y
            pred_w, pred_h = np.exp(np.minimum(dw, cap)) * ww, np.exp(np.minimum(dh, cap)) * hh
            corners = [pred_x - half * pred_w, pred_y - half * pred_h, pred_x + half * pred_w - one,
                       pred_y + half * pred_h - one]
            corners = [np.maximum(F32(0), c) for c in corners]
            areas = (corners[2] - corners[0] + one) * (corners[3] - corners[1] + one)
        boxes = np.zeros((classes, count, 4), F32)
        refined_areas = np.zeros((classes, count), F32)
        refined_scores = np.zeros((classes, count), F32)
        boxes[1:] = np.where(valid[..., None], np.stack(corners, -1), F32(0)).transpose(1, 0, 2)
        refined_areas[1:] = np.where(valid, areas, F32(0)).T
        refined_scores[1:] = np.where(valid, scores[:, 1:], F32(0)).T
        return boxes, refined_areas, refined_scores

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Refine, NMS per class, the best boxes (module docstring)."""
        rois, deltas, scores = (np.asarray(x).astype(F32) for x in inputs[:3])
        wanted = self.max_detections_per_image
        if len(rois) < wanted:
            raise OpError(f"ExperimentalDetectronDetectionOutput: {len(rois)} rois but max_detections_per_image is "
                          f"{wanted}: OpenVINO's reference reads that many rois (past the input), so irgraph "
                          "refuses it")
        rois, deltas, scores = rois[:wanted], deltas[:wanted], scores[:wanted]
        boxes, areas, refined_scores = self._refine(rois, deltas, scores)
        threshold, nms_threshold = F32(self.score_threshold), F32(self.nms_threshold)
        detections: list[tuple[np.float32, int, int]] = []
        for klass in range(1, self.num_classes):
            class_scores = refined_scores[klass]
            candidates = np.flatnonzero(class_scores > threshold)
            order = candidates[np.lexsort((candidates, -class_scores[candidates]))]
            kept: list[int] = []
            for index in order.tolist():
                if kept and (jaccard_plus_one(boxes[klass, index], areas[klass, index], boxes[klass, kept],
                                              areas[klass, kept]) > nms_threshold).any():
                    continue
                kept.append(index)
            if self.post_nms_count != -1:
                kept = kept[:max(self.post_nms_count, 0)]
            detections += [(class_scores[index], klass, index) for index in kept]
        if len(detections) > wanted:
            values = np.array([score for score, _, _ in detections], F32)
            indices = np.array([index for _, _, index in detections])
            detections = [detections[i] for i in np.lexsort((indices, -values))[:wanted]]
        dtype = np.asarray(inputs[0]).dtype
        out_boxes = np.zeros((wanted, 4), F32)
        out_classes = np.zeros(wanted, np.int32)
        out_scores = np.zeros(wanted, F32)
        for row, (score, klass, index) in enumerate(detections):
            out_boxes[row] = boxes[klass, index]
            out_classes[row] = klass
            out_scores[row] = score
        return [out_boxes.astype(dtype), out_classes, out_scores.astype(dtype)]
