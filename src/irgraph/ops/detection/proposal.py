"""Proposal-1 and -4: Faster R-CNN's region proposal network head: anchors, decoded deltas, greedy NMS.

Follows OpenVINO's reference (``reference/proposal.hpp``, openvino 2026.4.1), which neither constant folding nor
``Node.evaluate`` runs there:

- anchors per ratio then scale around ``0.5 * (base_size - offset)`` (offset 1, ratios' sizes rounded half away
  from zero, unless ``framework`` is tensorflow: offset 0, no rounding, anchors shifted by ``-base_size / 2``,
  boxes clipped to the image first and x and y swapped when placing them on the grid);
- box ``(h, w, anchor)`` of each image: the anchor moved to ``(w, h) * feat_stride``, decoded with the deltas
  (divided by ``box_coordinate_scale`` and ``box_size_scale``), clipped to ``[0, size - offset]`` with
  ``clip_before_nms``; its score (the anchor's second half channel) zeroed when the box is narrower or lower
  than ``min_size`` times the image's scale;
- sorted by score (OpenVINO's ``partial_sort`` leaves ties unordered; irgraph keeps lower boxes first), the
  first ``pre_nms_topn`` through greedy NMS (a box dies when its IoU with a kept one is > ``nms_thresh``) until
  ``post_nms_topn`` are kept;
- rows ``[image, x0, y0, x1, y1]`` (clipped to the image with ``clip_after_nms``, divided by its size with
  ``normalize``), ``post_nms_topn`` per image: zeros after the kept ones, the first of them with image -1.
  Proposal-4 also returns each row's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.numeric import round_half_away
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32


@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class _ProposalBase(Op):
    """Both versions (module docstring)."""

    type_name = "Proposal"
    inputs = Inputs.of(InputSpec("class_probs"), InputSpec("bbox_deltas"), InputSpec("image_shape"))
    # one ULP of exp(delta) times a box side of tens of pixels, then centre - w / 2 cancels near 0
    tolerance = Tolerance(ulp=4, eps=64)
    cpu_plugin_differs = ("openvino 2026.4.1's CPU plugin crashes (SIGSEGV) when pre_nms_topn is below "
                          "post_nms_topn, and when an image has fewer than 8 boxes (anchors x grid cells; measured: "
                          "4 and 6 crash, 8 and 9 run); its reference runs both. With framework tensorflow it swaps "
                          "the image's height and width (clips x to the height, y to the width, normalizes likewise) "
                          "where the reference does not")

    base_size: int = attribute()
    pre_nms_topn: int = attribute()
    post_nms_topn: int = attribute()
    nms_thresh: float = attribute()
    feat_stride: int = attribute(1)
    min_size: int = attribute(1)
    ratio: tuple[float, ...] = attribute()
    scale: tuple[float, ...] = attribute()
    clip_before_nms: bool = attribute(True)
    clip_after_nms: bool = attribute(False)
    normalize: bool = attribute(False)
    box_size_scale: float = attribute(1.0)
    box_coordinate_scale: float = attribute(1.0)
    framework: str = attribute("")

    def __post_init__(self) -> None:
        for name in ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride", "min_size"):
            check(getattr(self, name) >= 0, f"Proposal: '{name}' is an unsigned count. Got: {getattr(self, name)}")

    @property
    def tensorflow(self) -> bool:
        """TensorFlow's conventions (module docstring)."""
        return self.framework == "tensorflow"

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[images * post_nms_topn, 5]`` (and ``[images * post_nms_topn]`` for Proposal-4) of the class
        probabilities' type (OpenVINO's ``infer_prop_shape``)."""
        for tensor, name in zip(inputs, ("class_probs", "bbox_deltas", "image_shape"), strict=True):
            check(tensor.element_type.is_dynamic or tensor.element_type.is_real, f"Proposal layer input {name} "
                  f"should have floating point type ({tensor.element_type}).")
        probs, deltas, image = (t.shape for t in inputs)
        for shape, rank, name in ((probs, 4, "class_probs"), (deltas, 4, "bbox_deltas"), (image, 1, "image_shape")):
            if not shape.rank_is_dynamic and shape.rank != rank:
                raise OpError(f"Proposal layer shape {name} should be rank {rank} compatible ({shape}).")
        if not probs.rank_is_dynamic and not deltas.rank_is_dynamic:
            doubled = probs[1] * 2
            check(deltas[1].compatible(doubled), f"Anchor number inconsistent between class_probs ({doubled}), and "
                  f"bbox_deltas ({deltas[1]}).")
            check(probs[0].compatible(deltas[0]), f"Batch size inconsistent between class_probs ({probs[0]}) and "
                  f"bbox deltas ({deltas[0]}).")
        if image.is_static:
            check(3 <= image[0].value <= 4, "Image_shape 1D tensor must have => 3 and <= 4 elements "
                  f"(image_shape_shape[0]{image[0]}).")
        if not probs.rank_is_dynamic and not deltas.rank_is_dynamic:
            images = probs[0].merge(deltas[0])
        elif not probs.rank_is_dynamic:
            images = probs[0]
        elif not deltas.rank_is_dynamic:
            images = deltas[0]
        else:
            images = Dim.dynamic()
        assert images is not None
        rows = images * self.post_nms_topn
        out = [TensorType(inputs[0].element_type, Shape((rows, Dim.static(5))))]
        if self.with_scores:
            out.append(TensorType(inputs[0].element_type, Shape((rows,))))
        return out

    @property
    def with_scores(self) -> bool:
        """True for Proposal-4, which returns the kept boxes' scores too."""
        return False

    def anchors(self) -> np.ndarray:
        """``[ratios * scales, 4]`` anchors ``(x0, y0, x1, y1)`` (reference's ``generate_anchors``)."""
        offset = F32(0 if self.tensorflow else 1)
        base = F32(self.base_size * self.base_size)
        centre = F32(0.5) * (F32(self.base_size) - offset)
        ratios = np.asarray(self.ratio, F32)
        scales = np.asarray(self.scale, F32)
        with np.errstate(all="ignore"):
            width = np.sqrt(base / ratios)
            if self.tensorflow:
                height = width * ratios
            else:
                width = round_half_away(width)
                height = round_half_away(width * ratios)
            half_w = F32(0.5) * (width[:, None] * scales[None, :] - offset)
            half_h = F32(0.5) * (height[:, None] * scales[None, :] - offset)
            boxes = np.stack([centre - half_w, centre - half_h, centre + half_w, centre + half_h], -1)
            if self.tensorflow:
                boxes = boxes - F32(self.base_size) * F32(0.5)
        return boxes.reshape(-1, 4).astype(F32)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Anchors, decoding, NMS and the rows per image (module docstring)."""
        probs = np.asarray(inputs[0])
        dtype = probs.dtype
        deltas = np.asarray(inputs[1]).astype(F32)
        image = np.asarray(inputs[2]).astype(F32).reshape(-1)
        check(image.size in (3, 4), f"Image_shape 1D tensor must have => 3 and <= 4 elements. Got: {image.size}")
        images, channels, height, width = probs.shape
        anchor_count = channels // 2
        anchors = self.anchors()
        check(len(anchors) == anchor_count and deltas.shape == (images, anchor_count * 4, height, width),
              f"Proposal: class_probs {list(probs.shape)} ({anchor_count} anchors), bbox_deltas "
              f"{list(deltas.shape)} and {len(anchors)} ratio x scale anchors do not agree")
        if self.post_nms_topn == 0:
            raise OpError("Proposal: post_nms_topn is 0: OpenVINO's reference writes its first box past an empty "
                          "buffer, so irgraph refuses it")
        image_h, image_w, scale_h = image[0], image[1], image[2]
        scale_w = image[3] if image.size == 4 else scale_h
        min_h, min_w = F32(self.min_size) * scale_h, F32(self.min_size) * scale_w
        offset = F32(0 if self.tensorflow else 1)
        rows = np.zeros((images, self.post_nms_topn, 5), F32)
        scores_out = np.zeros((images, self.post_nms_topn), F32)
        for index in range(images):
            boxes, scores = self._enumerate(probs[index, anchor_count:].astype(F32), deltas[index], anchors,
                                            (image_h, image_w, min_h, min_w), offset)
            order = np.argsort(-scores, kind="stable")[:min(len(scores), self.pre_nms_topn)]
            kept = self._nms(boxes[order], offset)
            chosen = order[kept]
            found = boxes[chosen]
            if self.clip_after_nms:
                limits = np.array([image_w, image_h, image_w, image_h], F32)
                found = np.maximum(F32(0), np.minimum(found, limits))
            if self.normalize:
                found = found / np.array([image_w, image_h, image_w, image_h], F32)
            rows[index, :len(chosen), 0] = index
            rows[index, :len(chosen), 1:] = found
            scores_out[index, :len(chosen)] = scores[chosen]
            if len(chosen) < self.post_nms_topn:
                rows[index, len(chosen), 0] = -1
        result: list[np.ndarray] = [rows.reshape(-1, 5).astype(dtype)]
        if self.with_scores:
            result.append(scores_out.reshape(-1).astype(dtype))
        return result

    def _enumerate(self, scores: np.ndarray, deltas: np.ndarray, anchors: np.ndarray,
                   image: tuple[np.floating, ...], offset: np.float32) -> tuple[np.ndarray, np.ndarray]:
        """Boxes ``[H * W * A, 4]`` and scores in the reference's ``(h, w, anchor)`` order."""
        image_h, image_w, min_h, min_w = image
        count, height, width = scores.shape
        rows, columns = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
        if self.tensorflow:
            rows, columns = columns, rows
        shift_x = (columns * self.feat_stride).astype(F32)[:, :, None]
        shift_y = (rows * self.feat_stride).astype(F32)[:, :, None]
        d = deltas.reshape(count, 4, height, width).transpose(2, 3, 0, 1)  # [H, W, A, 4]
        dx = d[..., 0] / F32(self.box_coordinate_scale)
        dy = d[..., 1] / F32(self.box_coordinate_scale)
        dw = d[..., 2] / F32(self.box_size_scale)
        dh = d[..., 3] / F32(self.box_size_scale)
        x0, y0 = shift_x + anchors[:, 0], shift_y + anchors[:, 1]
        x1, y1 = shift_x + anchors[:, 2], shift_y + anchors[:, 3]
        if self.tensorflow:  # initial clip
            x0, x1 = (np.maximum(F32(0), np.minimum(v, image_w)) for v in (x0, x1))
            y0, y1 = (np.maximum(F32(0), np.minimum(v, image_h)) for v in (y0, y1))
        half = F32(0.5)
        with np.errstate(all="ignore"):
            ww, hh = x1 - x0 + offset, y1 - y0 + offset
            centre_x, centre_y = x0 + half * ww, y0 + half * hh
            centre_x, centre_y = dx * ww + centre_x, dy * hh + centre_y
            pred_w, pred_h = np.exp(dw) * ww, np.exp(dh) * hh
            x0, y0 = centre_x - half * pred_w, centre_y - half * pred_h
            x1, y1 = centre_x + half * pred_w, centre_y + half * pred_h
            if self.clip_before_nms:
                x0, x1 = (np.maximum(F32(0), np.minimum(v, image_w - offset)) for v in (x0, x1))
                y0, y1 = (np.maximum(F32(0), np.minimum(v, image_h - offset)) for v in (y0, y1))
            box_w, box_h = x1 - x0 + offset, y1 - y0 + offset
            big_enough = ((min_w <= box_w) & (min_h <= box_h)).astype(F32)
            scored = big_enough * scores.transpose(1, 2, 0)
        boxes = np.stack([x0, y0, x1, y1], -1).reshape(-1, 4).astype(F32)
        return boxes, scored.reshape(-1).astype(F32)

    def _nms(self, boxes: np.ndarray, offset: np.float32) -> np.ndarray:
        """Positions of the boxes (best first) greedy NMS keeps, at most ``post_nms_topn``."""
        alive = np.ones(len(boxes), bool)
        kept: list[int] = []
        threshold = F32(self.nms_thresh)
        for box in range(len(boxes)):
            if not alive[box]:
                continue
            kept.append(box)
            if len(kept) == self.post_nms_topn:
                break
            rest = boxes[box + 1:]
            a = boxes[box]
            overlapping = ((a[0] <= rest[:, 2]) & (a[1] <= rest[:, 3]) & (rest[:, 0] <= a[2]) & (rest[:, 1] <= a[3]))
            with np.errstate(all="ignore"):
                width = np.maximum(F32(0), np.minimum(a[2], rest[:, 2]) - np.maximum(a[0], rest[:, 0]) + offset)
                height = np.maximum(F32(0), np.minimum(a[3], rest[:, 3]) - np.maximum(a[1], rest[:, 1]) + offset)
                area = width * height
                area_a = (a[2] - a[0] + offset) * (a[3] - a[1] + offset)
                area_b = (rest[:, 2] - rest[:, 0] + offset) * (rest[:, 3] - rest[:, 1] + offset)
                iou = np.where(overlapping, area / (area_a + area_b - area), F32(0))
            alive[box + 1:] &= ~(threshold < iou)
        return np.array(kept, np.int64)


@register
@dataclass(frozen=True, kw_only=True)
class Proposal(_ProposalBase):
    """Region proposals (module docstring): ``[images * post_nms_topn, 5]``. Spec: Proposal-1."""

    introduced = 1


@register
@dataclass(frozen=True, kw_only=True)
class Proposal4(_ProposalBase):
    """Proposal-1 that also returns each row's score ``[images * post_nms_topn]``. Spec: Proposal-4."""

    introduced = 4

    @property
    def with_scores(self) -> bool:
        """Proposal-4 returns the scores."""
        return True

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Boxes and scores."""
        return 2
