"""ExperimentalDetectronGenerateProposalsSingleImage-6: Detectron's RPN proposals of one image.

OpenVINO's reference (``reference/experimental_detectron_proposal_single_image.cpp``, openvino 2026.4.1; it neither
folds nor evaluates the op there), quirks included:

- anchors ``[H * W * A, 4]``, deltas ``[A * 4, H, W]``, scores ``[A, H, W]``, image info ``[3]`` (height, width,
  scale: the scale is not used);
- each box ``(h, w, anchor)`` decoded with sizes + 1 (log sizes capped at ``log(1000 / 16)``, the far corner minus
  1), clipped to ``[0, side - 1]``; its score zeroed when it is narrower or lower than ``min_size``;
- sorted by score (OpenVINO's ``partial_sort`` leaves ties unordered; irgraph keeps lower boxes first), the first
  ``pre_nms_count`` through greedy NMS with IoU on sizes without the + 1, where each kept box *overwrites* the
  later boxes' fate: a box is dropped when its IoU with the most recent kept box before it is > ``nms_threshold``
  (an earlier kept box's verdict does not stay);
- ``[post_nms_count, 4]`` boxes and ``[post_nms_count]`` scores, zeros after the kept ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.detection.generate_proposals import decode_boxes
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32


def overwriting_nms(boxes: np.ndarray, threshold: np.float32, limit: int) -> list[int]:
    """The reference's ``nms_cpu``: each kept box sets every later box's fate anew (offset 0)."""
    dead = np.zeros(len(boxes), bool)
    kept: list[int] = []
    for box in range(len(boxes)):
        if dead[box]:
            continue
        kept.append(box)
        if len(kept) == limit:
            break
        a, rest = boxes[box], boxes[box + 1:]
        with np.errstate(all="ignore"):
            area_a = (a[2] - a[0]) * (a[3] - a[1])
            width = np.minimum(a[2], rest[:, 2]) - np.maximum(a[0], rest[:, 0])
            height = np.minimum(a[3], rest[:, 3]) - np.maximum(a[1], rest[:, 1])
            area = np.maximum(F32(0), width) * np.maximum(F32(0), height)
            area_b = (rest[:, 2] - rest[:, 0]) * (rest[:, 3] - rest[:, 1])
            iou = area / (area_a + area_b - area)
        overlapping = (a[0] <= rest[:, 2]) & (a[1] <= rest[:, 3]) & (rest[:, 0] <= a[2]) & (rest[:, 1] <= a[3])
        dead[box + 1:] = (threshold < iou) & overlapping
    return kept


@register
@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class ExperimentalDetectronGenerateProposalsSingleImage(Op):
    """One image's proposals (module docstring). Spec: ExperimentalDetectronGenerateProposalsSingleImage-6."""

    type_name = "ExperimentalDetectronGenerateProposalsSingleImage"
    introduced = 6
    inputs = Inputs.of(InputSpec("im_info"), InputSpec("anchors"), InputSpec("deltas"), InputSpec("scores"))
    # one ULP of exp(delta) times a box side of tens of pixels, then centre - w / 2 cancels near 0
    tolerance = Tolerance(ulp=4, eps=64)
    cpu_plugin_differs = ("openvino 2026.4.1's CPU plugin runs the usual greedy NMS (a box dropped by a kept box "
                          "stays dropped) where its reference lets each later kept box overwrite the verdict")

    min_size: float = attribute()
    nms_threshold: float = attribute()
    post_nms_count: int = attribute()
    pre_nms_count: int = attribute()

    def __post_init__(self) -> None:
        check(self.post_nms_count >= 0 and self.pre_nms_count >= 0, "ExperimentalDetectronGenerateProposalsSingle"
              f"Image: the counts must not be negative. Got: {self.pre_nms_count}, {self.post_nms_count}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Boxes and scores."""
        return 2

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[post_nms_count, 4]`` and ``[post_nms_count]`` of the image info's type (OpenVINO's shape rule)."""
        info, anchors, deltas, scores = (t.shape for t in inputs)
        if not info.rank_is_dynamic:
            check(info.rank == 1, f"The 'input_im_info' input is expected to be a 1D. Got: {info}")
            check(info[0].compatible(Dim.static(3)), "The 'input_im_info' shape is expected to be a compatible with "
                  f"[3]. Got: {info}")
        if not anchors.rank_is_dynamic:
            check(anchors.rank == 2, f"The 'input_anchors' input is expected to be a 2D. Got: {anchors}")
            check(anchors[1].compatible(Dim.static(4)), "The second dimension of 'input_anchors' should be "
                  f"compatible with 4. Got: {anchors[1]}")
        for shape, name in ((deltas, "input_deltas"), (scores, "input_scores")):
            if not shape.rank_is_dynamic and shape.rank != 3:
                raise OpError(f"The '{name}' input is expected to be a 3D. Got: {shape}")
        if not deltas.rank_is_dynamic and not scores.rank_is_dynamic:
            check(deltas[1].compatible(scores[1]), "Heights for inputs 'input_deltas' and 'input_scores' should be "
                  f"equal. Got: {deltas[1]}{scores[1]}")
            check(deltas[2].compatible(scores[2]), "Width for inputs 'input_deltas' and 'input_scores' should be "
                  f"equal. Got: {deltas[2]}{scores[2]}")
        rows = Dim.static(self.post_nms_count)
        out_type = inputs[0].element_type
        return [TensorType(out_type, Shape((rows, Dim.static(4)))), TensorType(out_type, Shape((rows,)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Decode, sort, NMS (module docstring)."""
        info, anchors, deltas, scores = (np.asarray(x).astype(F32) for x in inputs)
        count, height, width = scores.shape
        if anchors.shape != (height * width * count, 4) or deltas.shape != (count * 4, height, width):
            raise OpError(f"ExperimentalDetectronGenerateProposalsSingleImage: anchors {list(anchors.shape)} and "
                          f"deltas {list(deltas.shape)} do not match scores {list(scores.shape)} ([H * W * A, 4] "
                          "and [A * 4, H, W]): OpenVINO's reference reads past them")
        offset = F32(1)
        d = deltas.reshape(count, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
        boxes = decode_boxes(anchors, d, (info[0], info[1]), offset)
        with np.errstate(all="ignore"):
            box_w, box_h = boxes[:, 2] - boxes[:, 0] + offset, boxes[:, 3] - boxes[:, 1] + offset
            big_enough = ((F32(self.min_size) <= box_w) & (F32(self.min_size) <= box_h)).astype(F32)
            box_scores = big_enough * scores.transpose(1, 2, 0).reshape(-1)
        order = np.argsort(-box_scores, kind="stable")[:min(len(box_scores), self.pre_nms_count)]
        kept = order[overwriting_nms(boxes[order], F32(self.nms_threshold), self.post_nms_count)]
        dtype = np.asarray(inputs[0]).dtype
        rois = np.zeros((self.post_nms_count, 4), F32)
        out_scores = np.zeros(self.post_nms_count, F32)
        rois[:len(kept)] = boxes[kept]
        out_scores[:len(kept)] = box_scores[kept]
        return [rois.astype(dtype), out_scores.astype(dtype)]
