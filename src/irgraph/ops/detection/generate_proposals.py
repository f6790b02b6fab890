"""GenerateProposals-9: Detectron's RPN proposals per image from given anchors: decode, clip, sort, greedy NMS.

Follows OpenVINO's reference (``reference/generate_proposal.cpp``, openvino 2026.4.1), which neither constant
folding nor ``Node.evaluate`` runs there (its outputs' sizes depend on the values):

- anchors ``[H, W, A, 4]`` shared by the images; deltas ``[B, A * 4, H, W]``, scores ``[B, A, H, W]``, image
  info ``[B, 3 or 4]`` (height, width, scale, or height and width scales);
- each box ``(h, w, anchor)`` decoded (sizes + 1 unless ``normalized``; log sizes capped at ``log(1000 / 16)``;
  the far corner minus that 1), clipped to ``[0, side - offset]``, and dropped before NMS when narrower or lower
  than ``min_size`` times the image's scale;
- sorted by score (OpenVINO's ``partial_sort`` leaves ties unordered; irgraph keeps lower boxes first), the first
  ``pre_nms_count`` through greedy NMS (a box dies when its IoU with a kept box is > ``nms_threshold``) until
  ``post_nms_count`` are kept;
- outputs: the kept boxes of every image one after the other ``[R, 4]``, their scores ``[R]`` and each image's
  count ``[B]`` of ``roi_num_type``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32
MAX_DELTA_LOG_WH = F32(math.log(1000.0 / 16.0))


def greedy_proposal_nms(boxes: np.ndarray, dead: np.ndarray, threshold: np.float32, offset: np.float32,
                        limit: int) -> list[int]:
    """Greedy NMS over ``boxes`` (best first; ``dead`` ones skipped) as ``generate_proposal_nms_cpu``: a later box
    dies when it overlaps a kept one with IoU > ``threshold``; at most ``limit`` kept."""
    dead = dead.copy()
    kept: list[int] = []
    for box in range(len(boxes)):
        if dead[box]:
            continue
        kept.append(box)
        if len(kept) == limit:
            break
        a, rest = boxes[box], boxes[box + 1:]
        with np.errstate(all="ignore"):
            area_a = ((a[2] - a[0]) + offset) * ((a[3] - a[1]) + offset)
            width = np.minimum(a[2], rest[:, 2]) - np.maximum(a[0], rest[:, 0]) + offset
            height = np.minimum(a[3], rest[:, 3]) - np.maximum(a[1], rest[:, 1]) + offset
            area = np.maximum(F32(0), width) * np.maximum(F32(0), height)
            area_b = ((rest[:, 2] - rest[:, 0]) + offset) * ((rest[:, 3] - rest[:, 1]) + offset)
            iou = area / (area_a + area_b - area)
        overlapping = (a[0] <= rest[:, 2]) & (a[1] <= rest[:, 3]) & (rest[:, 0] <= a[2]) & (rest[:, 1] <= a[3])
        dead[box + 1:] |= (threshold < iou) & overlapping
    return kept


def decode_boxes(anchors: np.ndarray, deltas: np.ndarray, image: tuple[np.float32, np.float32],
                 offset: np.float32) -> np.ndarray:
    """Anchors ``[..., 4]`` moved by deltas ``[..., 4]``, clipped to the image ``(height, width)``, in the
    reference's order of float32 operations (capped log sizes, far corner minus the offset)."""
    half = F32(0.5)
    x0, y0, x1, y1 = (anchors[..., k] for k in range(4))
    dx, dy, dw, dh = (deltas[..., k] for k in range(4))
    with np.errstate(all="ignore"):
        ww, hh = x1 - x0 + offset, y1 - y0 + offset
        centre_x, centre_y = x0 + half * ww, y0 + half * hh
        centre_x, centre_y = dx * ww + centre_x, dy * hh + centre_y
        pred_w = np.exp(np.minimum(dw, MAX_DELTA_LOG_WH)) * ww
        pred_h = np.exp(np.minimum(dh, MAX_DELTA_LOG_WH)) * hh
        corners = [centre_x - half * pred_w, centre_y - half * pred_h,
                   centre_x + half * pred_w - offset, centre_y + half * pred_h - offset]
    height, width = image
    limits = [width - offset, height - offset, width - offset, height - offset]
    return np.stack([np.maximum(F32(0), np.minimum(c, limit)) for c, limit in zip(corners, limits, strict=True)],
                    -1).astype(F32)


@register
@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class GenerateProposals(Op):
    """Proposals per image (module docstring). Spec: GenerateProposals-9."""

    type_name = "GenerateProposals"
    introduced = 9
    inputs = Inputs.of(InputSpec("im_info"), InputSpec("anchors"), InputSpec("deltas"), InputSpec("scores"))
    # one ULP of exp(delta) times a box side of tens of pixels, then centre - w / 2 cancels near 0
    tolerance = Tolerance(ulp=4, eps=64)

    min_size: float = attribute()
    nms_threshold: float = attribute()
    post_nms_count: int = attribute()
    pre_nms_count: int = attribute()
    normalized: bool = attribute(True)
    nms_eta: float = attribute(1.0)
    roi_num_type: ElementType = attribute(ElementType.I64)

    def __post_init__(self) -> None:
        check(self.pre_nms_count > 0, f"Attribute pre_nms_count must be larger than 0. Got: {self.pre_nms_count}")
        check(self.post_nms_count > 0, f"Attribute post_nms_count must be larger than 0. Got: {self.post_nms_count}")
        check(self.nms_eta == 1.0, f"Attribute nms_eta must be 1.0 (OpenVINO's message says min_size). Got: "
              f"{self.nms_eta}")
        check(self.roi_num_type in (ElementType.I32, ElementType.I64),
              f"The third output type must be int64 or int32. Got: {self.roi_num_type}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Boxes, scores, counts per image."""
        return 3

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[0..B * post_nms_count, 4]``, ``[0..B * post_nms_count]``, ``[B]`` (OpenVINO's shape rule)."""
        info, anchors, deltas, scores = (t.shape for t in inputs)
        for shape, rank, name in ((info, 2, "input_im_info"), (anchors, 4, "input_anchors"),
                                  (deltas, 4, "input_deltas"), (scores, 4, "input_scores")):
            if not shape.rank_is_dynamic and shape.rank != rank:
                raise OpError(f"The '{name}' input is expected to be a {rank}D. Got: {shape}")
        images = Dim.dynamic()  # narrowed by each input that has a batch dim
        if not info.rank_is_dynamic:
            check(info[1].compatible(Dim.static(3)) or info[1].compatible(Dim.static(4)),
                  f"The 'input_im_info' shape[1] is expected to be a compatible with [3] or [4]. Got: {info}")
            images = images.merge(info[0]) or images
        if not anchors.rank_is_dynamic:
            check(anchors[3].compatible(Dim.static(4)), "The fourth dimension of 'input_anchors' should be "
                  f"compatible with 4. Got: {anchors[3]}")
        for shape in (deltas, scores):
            if not shape.rank_is_dynamic:
                images = images.merge(shape[0]) or images
        if not deltas.rank_is_dynamic and not scores.rank_is_dynamic:
            four = scores[1] * 4
            for good, message in ((deltas[0].compatible(scores[0]), "Batch for inputs 'input_deltas' and "
                                   f"'input_scores' should be equal. Got: {deltas[0]}{scores[0]}"),
                                  (deltas[1].compatible(four), "Anchor number for inputs 'input_deltas' and "
                                   f"'input_scores' should be equal. Got: {deltas[1]}{scores[1]}"),
                                  (deltas[2].compatible(scores[2]), "Heights for inputs 'input_deltas' and "
                                   f"'input_scores' should be equal. Got: {deltas[2]}{scores[2]}"),
                                  (deltas[3].compatible(scores[3]), "Width for inputs 'input_deltas' and "
                                   f"'input_scores' should be equal. Got: {deltas[3]}{scores[3]}"),
                                  (info.rank_is_dynamic or deltas[0].compatible(info[0]), "Batch for inputs "
                                   "'im_info' and 'input_deltas' should be equal. Got: "
                                   f"{deltas[0]}{info[0] if not info.rank_is_dynamic else ''}")):
                check(good, message)
        if not scores.rank_is_dynamic and not anchors.rank_is_dynamic:
            for axis, score_axis, what in ((0, 2, "Heights"), (1, 3, "Width"), (2, 1, "Anchor number")):
                check(anchors[axis].compatible(scores[score_axis]), f"{what} for inputs 'input_anchors' and "
                      f"'input_scores' should be equal. Got: {anchors[axis]}{scores[score_axis]}")
        rows = Dim(0, None if images.max is None else images.max * self.post_nms_count)
        out_type = inputs[0].element_type
        return [TensorType(out_type, Shape((rows, Dim.static(4)))), TensorType(out_type, Shape((rows,))),
                TensorType(self.roi_num_type, Shape((images,)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per image: decode, sort, NMS (module docstring)."""
        info = np.asarray(inputs[0]).astype(F32)
        anchors = np.asarray(inputs[1]).astype(F32)
        deltas = np.asarray(inputs[2]).astype(F32)
        scores = np.asarray(inputs[3]).astype(F32)
        images, count, height, width = scores.shape
        check(anchors.shape == (height, width, count, 4) and deltas.shape == (images, count * 4, height, width)
              and info.shape[0] == images and info.shape[1] in (3, 4),
              f"GenerateProposals: im_info {list(info.shape)}, anchors {list(anchors.shape)}, deltas "
              f"{list(deltas.shape)} and scores {list(scores.shape)} do not agree")
        offset = F32(0 if self.normalized else 1)
        rois, kept_scores, counts = [], [], []
        for image in range(images):
            image_h, image_w, scale_h = info[image, 0], info[image, 1], info[image, 2]
            scale_w = info[image, 3] if info.shape[1] == 4 else scale_h
            d = deltas[image].reshape(count, 4, height, width).transpose(2, 3, 0, 1)  # [H, W, A, 4]
            boxes = decode_boxes(anchors, d, (image_h, image_w), offset).reshape(-1, 4)
            box_scores = scores[image].transpose(1, 2, 0).reshape(-1)
            with np.errstate(all="ignore"):
                box_w, box_h = boxes[:, 2] - boxes[:, 0] + offset, boxes[:, 3] - boxes[:, 1] + offset
                big_enough = (F32(self.min_size) * scale_w <= box_w) & (F32(self.min_size) * scale_h <= box_h)
            order = np.argsort(-box_scores, kind="stable")[:min(len(box_scores), self.pre_nms_count)]
            kept = order[greedy_proposal_nms(boxes[order], ~big_enough[order], F32(self.nms_threshold), offset,
                                             self.post_nms_count)]
            rois.append(boxes[kept])
            kept_scores.append(box_scores[kept])
            counts.append(len(kept))
        dtype = np.asarray(inputs[0]).dtype
        return [np.concatenate(rois).reshape(-1, 4).astype(dtype), np.concatenate(kept_scores).astype(dtype),
                np.array(counts, self.roi_num_type.numpy_dtype)]
