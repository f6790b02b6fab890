"""DetectionOutput-1 and -8: SSD's head: decode box predictions against priors, per-class greedy NMS, keep_top_k.

Follows OpenVINO's reference (``reference/detection_output.hpp``, openvino 2026.4.1), which neither constant
folding nor ``Node.evaluate`` runs there, quirks included:

- priors ``[1 or N, 2, P * size]`` (``size`` 4, or 5 when not ``normalized``: the box is values 1..4); the
  variance row is read 4 values per prior whatever ``size`` is; with ``variance_encoded_in_target`` the second
  axis is 1 and no variances are applied. Unnormalized priors are divided by ``input_width``/``input_height``.
- with 5 inputs (objectness, "cascade regression"): a prior whose second arm confidence is below
  ``objectness_score`` scores 1 for the background class and 0 for the others; its prior is first decoded with
  the arm box predictions, then that box (divided by the input size again when not normalized) decodes the box
  predictions; ``clip_before_nms`` clips after both decodings.
- Caffe style (``decrease_label_id`` false): per class other than ``background_label_id``, candidates with score
  > ``confidence_threshold``, stably sorted by score (ties: lower prior first), cut to ``top_k``, greedy NMS
  dropping a candidate whose IoU with a kept box is > ``nms_threshold``.
- MXNet style (``decrease_label_id`` true): each prior's best class from 1 on (first of equal scores, a score
  must exceed -1), kept when >= ``confidence_threshold``; all priors sorted by score (then prior), cut to
  ``top_k``, greedy NMS within each class; labels are written minus 1.
- per image, when more than ``keep_top_k[0]`` (> -1) detections: sorted by score (then prior; OpenVINO's sort
  is not stable, irgraph breaks the remaining ties by lower class first), cut, regrouped by class.
- rows ``[image, label, score, xmin, ymin, xmax, ymax]`` image by image, class by class ascending; rows after
  the last detection are zeros, the first of them with image -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

CODE_TYPES = ("caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE")


def jaccard(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one box with each of ``others`` ``[K, 4]`` as the reference's ``JaccardOverlap`` computes it: 0
    when the boxes are apart or the intersection has no positive width and height, an inverted box has area 0."""
    dtype = others.dtype
    apart = ((others[:, 0] > box[2]) | (others[:, 2] < box[0]) | (others[:, 1] > box[3]) | (others[:, 3] < box[1]))
    width = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    height = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    overlapping = ~apart & (width > 0) & (height > 0)

    def size(b: np.ndarray) -> np.ndarray:
        inverted = (b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1])
        return np.where(inverted, dtype.type(0), (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]))

    with np.errstate(all="ignore"):
        intersection = width * height
        iou = intersection / ((size(box) + size(others)) - intersection)
    return np.where(overlapping, iou, dtype.type(0)).astype(dtype)


def greedy_nms(boxes: np.ndarray, order: np.ndarray, threshold: np.floating) -> list[int]:
    """Candidates ``order`` (indices into ``boxes``, best first) kept unless their IoU with an earlier kept box
    is > ``threshold``: each kept box drops the later candidates it overlaps, all at once (the IoU is symmetric,
    so this keeps what the reference's candidate-by-candidate loop keeps)."""
    candidates = boxes[order]
    alive = np.ones(len(order), bool)
    kept: list[int] = []
    for position in range(len(order)):
        if not alive[position]:
            continue
        kept.append(int(order[position]))
        rest = alive[position + 1:]
        if rest.any():
            later = np.flatnonzero(rest) + position + 1
            alive[later[jaccard(candidates[position], candidates[later]) > threshold]] = False
    return kept


@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class _DetectionOutputBase(Op):
    """Both versions (module docstring); DetectionOutput-1 also names ``num_classes``."""

    type_name = "DetectionOutput"
    inputs = Inputs.optional(3, InputSpec("box_logits"), InputSpec("class_preds"), InputSpec("proposals"),
                             InputSpec("aux_class_preds"), InputSpec("aux_box_preds"))
    tolerance = Tolerance(ulp=4, eps=4)  # exp of the centre-size decoding, then x - w / 2 cancels
    cpu_plugin_differs = ("openvino 2026.4.1's CPU plugin leaves the rows after the end row (image -1) unwritten "
                          "where the reference writes zeros; it refuses decrease_label_id with a "
                          "background_label_id other than 0, and keep_top_k 0 with top_k above the prior count "
                          "(it wants top_k rows per class), which the reference runs")

    background_label_id: int = attribute(0)
    top_k: int = attribute(-1)
    variance_encoded_in_target: bool = attribute(False)
    keep_top_k: tuple[int, ...] = attribute()
    code_type: str = attribute("caffe.PriorBoxParameter.CORNER")
    share_location: bool = attribute(True)
    nms_threshold: float = attribute()
    confidence_threshold: float = attribute(0.0)
    clip_after_nms: bool = attribute(False)
    clip_before_nms: bool = attribute(False)
    decrease_label_id: bool = attribute(False)
    normalized: bool = attribute(False)
    input_height: int = attribute(1)
    input_width: int = attribute(1)
    objectness_score: float = attribute(0.0)

    def __post_init__(self) -> None:
        check(self.code_type in CODE_TYPES, 'code_type must be either "caffe.PriorBoxParameter.CORNER" or '
              f'"caffe.PriorBoxParameter.CENTER_SIZE". Got: {self.code_type!r}')
        check(len(self.keep_top_k) >= 1, "keep_top_k must hold at least one value. Got: []")

    @property
    def class_count(self) -> int:
        """The ``num_classes`` attribute, or -1 when the inputs' shapes say (DetectionOutput-8)."""
        return -1

    @property
    def prior_size(self) -> int:
        """Values per prior box: 4, or 5 (a leading batch index) when not normalized."""
        return 4 if self.normalized else 5

    # ------------------------------------------------------------------------------ shapes
    def _deduce(self, shapes: Sequence[Shape]) -> tuple[int, int]:
        """``num_classes`` and ``num_prior_boxes`` from the shapes, as OpenVINO's ``compute_num_classes`` (0 where
        unknown)."""
        logits, preds, proposals = shapes[:3]
        classes = priors = 0
        size = self.prior_size
        if not proposals.rank_is_dynamic and proposals[2].is_static:
            third = proposals[2].value
            check(third % size == 0, f"Proposals' third dimension must be a multiply of prior_box_size ({size}). "
                  f"Current value is: {third}.")
            priors = third // size
            check(priors > 0, f"A number of prior boxes must be greater zero. Got: {priors}")
        if not priors and len(shapes) == 5 and not shapes[3].rank_is_dynamic and shapes[3][1].is_static:
            second = shapes[3][1].value
            check(second % 2 == 0, "Additional class predictions second dimension must be a multiply of 2. "
                  f"Current value is: {second}.")
            priors = second // 2
            check(priors > 0, f"A number of prior boxes must be greater zero. Got: {priors}")
        if priors and not preds.rank_is_dynamic and preds[1].is_static:
            check(preds[1].value % priors == 0, "Class predictions second dimension must be a multiply of "
                  f"num_prior_boxes ({priors}). Current value is: {preds[1].value}.")
            classes = preds[1].value // priors
        for source, name in ((logits, "Box logits"), (shapes[4] if len(shapes) == 5 else None,
                                                      "Additional box predictions")):
            if classes or not priors or source is None or self.share_location:
                continue
            if not source.rank_is_dynamic and source[1].is_static:
                check(source[1].value % (priors * 4) == 0, f"{name} second dimension must be a multiply of "
                      f"num_prior_boxes * 4 ({priors * 4}). Current value is: {source[1].value}.")
                classes = source[1].value // (priors * 4)
        return classes, priors

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[1, 1, rows, 7]`` of the box logits' type; rows: images x keep_top_k, else images x top_k x classes,
        else images x priors x classes (OpenVINO's ``shape_infer_base``)."""
        check(len(inputs) in (3, 5), f"DetectionOutput takes 3 or 5 inputs. Got: {len(inputs)}")
        logits_type = inputs[0].element_type
        check(logits_type.is_dynamic or logits_type.is_real,
              f"Box logits' data type must be floating point. Got {logits_type}")
        check(inputs[1].element_type == logits_type, "Class predictions' data type must be the same as box logits "
              f"type ({logits_type}). Got {inputs[1].element_type}")
        check(inputs[2].element_type.is_dynamic or inputs[2].element_type.is_real,
              f"Proposals' data type must be floating point. Got {inputs[2].element_type}")
        if len(inputs) == 5:
            check(inputs[3].element_type == inputs[1].element_type, "Additional class predictions' data type must "
                  f"be the same as class predictions data type ({inputs[1].element_type}). Got "
                  f"{inputs[3].element_type}")
            check(inputs[4].element_type == logits_type, "Additional box predictions' data type must be the same "
                  f"as box logits data type ({logits_type}). Got {inputs[4].element_type}")
        shapes = [t.shape for t in inputs]
        for shape, rank, name in zip(shapes, (2, 2, 3, 2, 2), ("Box logits", "Class predictions", "Proposals",
                                                              "Additional class predictions",
                                                              "Additional box predictions"), strict=False):
            if not shape.rank_is_dynamic and shape.rank != rank:
                raise OpError(f"{name} rank must be {rank}. Got {shape.rank}")
        if self.class_count == -1:
            classes, priors = self._deduce(shapes)
        else:
            classes, priors = self.class_count, 0
        logits, preds, proposals = shapes[:3]
        loc_classes = 1 if self.share_location else classes
        images = Dim.dynamic()
        images_known = False
        if not logits.rank_is_dynamic:
            images, images_known = logits[0], True
            if not priors and logits[1].is_static:
                second = logits[1].value
                check(loc_classes != 0 and second % (loc_classes * 4) == 0, "Box logits' second dimension must be a "
                      f"multiply of num_loc_classes * 4 ({loc_classes * 4}). Current value is: {second}.")
                priors = second // (loc_classes * 4)
            if priors and loc_classes:
                check(logits[1].compatible(Dim.static(priors * loc_classes * 4)), "The second dimension of the first "
                      f"input (box logits) is not compatible. Current value: {logits[1]}, expected value: "
                      f"{priors * loc_classes * 4}")
        if not preds.rank_is_dynamic:
            if (not images_known or images.is_dynamic) and preds[0].is_static:
                images, images_known = preds[0], True
            else:
                check(preds[0].compatible(images), "Class predictions' first dimension is not compatible with batch "
                      f"size.  Current value is: {preds[0]}, expected: {images}.")
            if preds[1].is_static and classes:
                if not priors:
                    check(preds[1].value % classes == 0, "Class predictions' second dimension must be a multiply of "
                          f"num_classes ({classes}). Current value is: {preds[1].value}.")
                    priors = preds[1].value // classes
                else:
                    check(preds[1].value == priors * classes, "Class predictions' second dimension must be equal to "
                          f"num_prior_boxes * num_classes ({priors * classes}). Current value is: {preds[1].value}.")
        if not proposals.rank_is_dynamic:
            check(proposals[0].compatible(Dim.static(1)) or proposals[0].compatible(images), "Proposals' first "
                  f"dimension is must be equal to either batch size ({images}) or 1. Got: {proposals[0]}.")
            expected = 1 if self.variance_encoded_in_target else 2
            check(proposals[1].compatible(Dim.static(expected)), "Proposals' second dimension is mismatched. "
                  f"Current value is: {proposals[1]}, expected: {expected}.")
            if proposals[2].is_static:
                third = proposals[2].value
                if not priors:
                    check(third % self.prior_size == 0, "Proposals' third dimension must be a multiply of "
                          f"prior_box_size ({self.prior_size}). Current value is: {third}.")
                    priors = third // self.prior_size
                else:
                    check(third == priors * self.prior_size, "Proposals' third dimension must be equal to "
                          f"num_prior_boxes * prior_box_size ({priors * self.prior_size}). Current value is: {third}.")
        if len(inputs) == 5:
            aux_preds, aux_boxes = shapes[3], shapes[4]
            if not aux_preds.rank_is_dynamic:
                check(aux_preds[0].compatible(images), "Additional class predictions' first dimension must be "
                      f"compatible with batch size. Current value is: {aux_preds[0]}, expected: {images}.")
                if priors:
                    check(aux_preds[1].compatible(Dim.static(priors * 2)), "Additional class predictions' second "
                          "dimension must be compatible with num_prior_boxes * 2. Current value is: "
                          f"{aux_preds[1]}, expected: {priors * 2}.")
                if aux_preds[1].is_static:
                    priors = aux_preds[1].value // 2
            check(aux_boxes.compatible(logits), "Additional box predictions' shape must be compatible with box "
                  f"logits shape. Current value is: {aux_boxes}, expected: {logits}.")
        prior_dim = Dim.static(priors) if priors else Dim.dynamic()
        class_dim = Dim.static(classes) if classes else Dim.dynamic()
        if self.keep_top_k[0] > 0:
            rows = images * self.keep_top_k[0]
        elif self.keep_top_k[0] == -1 and self.top_k > 0:
            rows = images * self.top_k * class_dim
        else:
            rows = images * prior_dim * class_dim
        out = Shape((Dim.static(1), Dim.static(1), rows, Dim.static(7)))
        return [TensorType(logits_type, out)]

    # ------------------------------------------------------------------------------ values
    def _decode(self, priors: np.ndarray, variances: np.ndarray | None, loc: np.ndarray) -> np.ndarray:
        """Boxes ``[..., 4]`` from priors and predictions (broadcast), in the reference's order of operations."""
        dtype = loc.dtype.type
        p = [priors[..., k] for k in range(4)]
        if not self.normalized:
            width, height = dtype(self.input_width), dtype(self.input_height)
            p = [p[0] / width, p[1] / height, p[2] / width, p[3] / height]
        delta = [loc[..., k] for k in range(4)]
        if variances is not None:
            delta = [variances[..., k] * delta[k] for k in range(4)]
        if self.code_type == CODE_TYPES[0]:
            out = [p[k] + delta[k] for k in range(4)]
        else:
            two = dtype(2)
            prior_w, prior_h = p[2] - p[0], p[3] - p[1]
            centre_x, centre_y = (p[0] + p[2]) / two, (p[1] + p[3]) / two
            x = delta[0] * prior_w + centre_x
            y = delta[1] * prior_h + centre_y
            w = np.exp(delta[2]) * prior_w
            h = np.exp(delta[3]) * prior_h
            out = [x - w / two, y - h / two, x + w / two, y + h / two]
        boxes = np.stack(np.broadcast_arrays(*out), axis=-1).astype(loc.dtype)
        if self.clip_before_nms:
            boxes = np.maximum(dtype(0), np.minimum(dtype(1), boxes))
        return boxes

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Decode, NMS, keep_top_k and the rows (module docstring)."""
        logits = np.asarray(inputs[0])
        dtype = logits.dtype
        images, prior_count = logits.shape[0], inputs[2].shape[2] // self.prior_size
        check(logits.ndim == 2 and np.ndim(inputs[1]) == 2 and np.ndim(inputs[2]) == 3 and prior_count > 0,
              "DetectionOutput: box logits and class predictions must be 2-D and the priors 3-D with at least one "
              f"prior. Got: {[list(np.shape(x)) for x in inputs]}")
        classes = self.class_count if self.class_count > 0 else inputs[1].shape[1] // prior_count
        loc_classes = 1 if self.share_location else classes
        expected = {0: (images, prior_count * loc_classes * 4), 1: (images, prior_count * classes),
                    3: (images, prior_count * 2), 4: (images, prior_count * loc_classes * 4)}
        for index, shape in expected.items():
            if index < len(inputs) and tuple(np.shape(inputs[index])) != shape:
                raise OpError(f"DetectionOutput: input {index} must be {list(shape)} for {images} images, "
                              f"{prior_count} priors and {classes} classes. Got: {list(np.shape(inputs[index]))}")
        check(inputs[2].shape[0] in (1, images) and inputs[2].shape[1] >= (
            1 if self.variance_encoded_in_target else 2), "DetectionOutput: the priors must be [1 or images, 2 (1 "
              f"with variance_encoded_in_target), priors * {self.prior_size}]. Got: {list(inputs[2].shape)}")
        proposals = np.asarray(inputs[2]).astype(dtype)
        offset = 0 if self.normalized else 1
        prior_boxes = proposals[:, 0, :].reshape(proposals.shape[0], prior_count, self.prior_size)
        prior_boxes = prior_boxes[:, :, offset:offset + 4][:, :, None, :]  # [B or 1, P, 1, 4]
        variances = None
        if not self.variance_encoded_in_target:  # 4 values per prior, whatever the prior's size
            variances = proposals[:, 1, :prior_count * 4].reshape(proposals.shape[0], prior_count, 1, 4)
        loc = logits.reshape(images, prior_count, loc_classes, 4)
        scores = np.asarray(inputs[1]).astype(dtype).reshape(images, prior_count, classes)
        if len(inputs) == 5:
            arm = np.asarray(inputs[3]).astype(dtype).reshape(images, prior_count, 2)
            background = (np.arange(classes) == self.background_label_id).astype(dtype)
            scores = np.where((arm[:, :, 1] < dtype.type(self.objectness_score))[:, :, None], background, scores)
            arm_loc = np.asarray(inputs[4]).astype(dtype).reshape(images, prior_count, loc_classes, 4)
            prior_boxes = self._decode(prior_boxes, variances, arm_loc)
        boxes = self._decode(prior_boxes, variances, loc)  # [N, P, L, 4]
        rows = self.infer_rows(images, prior_count, classes)
        result = np.zeros((1, 1, rows, 7), dtype)
        count = 0
        for image in range(images):
            detections = self._image(boxes[image], scores[image], classes)
            for label, index in detections:
                box = boxes[image, index, 0 if self.share_location else label]
                if self.clip_after_nms:
                    box = np.maximum(dtype.type(0), np.minimum(dtype.type(1), box))
                if count >= rows:
                    raise OpError(f"DetectionOutput made more than its {rows} rows")
                label_out = label - 1 if self.decrease_label_id else label
                result[0, 0, count, :3] = (image, label_out, scores[image, index, label])
                result[0, 0, count, 3:] = box
                count += 1
        if count < rows:
            result[0, 0, count, 0] = -1
        return [result]

    def infer_rows(self, images: int, priors: int, classes: int) -> int:
        """The output's row count for static inputs."""
        if self.keep_top_k[0] > 0:
            return images * self.keep_top_k[0]
        if self.keep_top_k[0] == -1 and self.top_k > 0:
            return images * self.top_k * classes
        return images * priors * classes

    def _image(self, boxes: np.ndarray, scores: np.ndarray, classes: int) -> list[tuple[int, int]]:
        """(label, prior) detections of one image in output order: ``boxes [P, L, 4]``, ``scores [P, C]``."""
        dtype = scores.dtype.type
        threshold, nms_threshold = dtype(self.confidence_threshold), dtype(self.nms_threshold)
        kept: dict[int, list[int]] = {}
        if not self.decrease_label_id:
            for label in range(classes):
                if label == self.background_label_id:
                    continue
                column = scores[:, label]
                candidates = np.flatnonzero(column > threshold)
                order = candidates[np.argsort(-column[candidates], kind="stable")]
                if self.top_k > -1:
                    order = order[:self.top_k]
                kept[label] = greedy_nms(boxes[:, 0 if self.share_location else label], order, nms_threshold)
        else:
            kept = self._mxnet(boxes, scores, classes, threshold, nms_threshold)
        total = sum(len(v) for v in kept.values())
        if self.keep_top_k[0] > -1 and total > self.keep_top_k[0]:
            pairs = [(label, index) for label in sorted(kept) for index in kept[label]]
            pair_scores = np.array([scores[index, label] for label, index in pairs], scores.dtype)
            pair_priors = np.array([index for _, index in pairs])
            order = np.lexsort((pair_priors, -pair_scores))[:self.keep_top_k[0]]
            kept = {}
            for position in order.tolist():
                label, index = pairs[position]
                kept.setdefault(label, []).append(index)
        return [(label, index) for label in sorted(kept) for index in kept[label]]

    def _mxnet(self, boxes: np.ndarray, scores: np.ndarray, classes: int, threshold: np.floating,
               nms_threshold: np.floating) -> dict[int, list[int]]:
        """MXNet style: each prior's best class, one sort over all priors, NMS within each class."""
        if classes < 2:
            return {}
        dtype = scores.dtype.type
        candidates = scores[:, 1:].copy()
        candidates[np.isnan(candidates)] = -np.inf
        if self.background_label_id > 0:
            candidates[:, self.background_label_id - 1] = -np.inf
        best = candidates.max(axis=1)
        label = candidates.argmax(axis=1) + 1
        chosen = np.flatnonzero((best > dtype(-1)) & (best >= threshold))
        order = chosen[np.lexsort((chosen, -best[chosen]))]
        if self.top_k > -1:
            order = order[:self.top_k]
        kept: dict[int, list[int]] = {}
        labels = label[order]
        for klass in np.unique(labels).tolist():  # suppression stays within a class: each class on its own
            class_boxes = boxes[:, 0 if self.share_location else klass]
            kept[klass] = greedy_nms(class_boxes, order[labels == klass], nms_threshold)
        return kept


@register
@dataclass(frozen=True, kw_only=True)
class DetectionOutput(_DetectionOutputBase):
    """SSD's detection head (module docstring) with the class count as ``num_classes``. Spec: DetectionOutput-1."""

    introduced = 1
    attribute_order = ("num_classes", "background_label_id", "top_k", "variance_encoded_in_target", "keep_top_k",
                       "code_type", "share_location", "nms_threshold", "confidence_threshold", "clip_after_nms",
                       "clip_before_nms", "decrease_label_id", "normalized", "input_height", "input_width",
                       "objectness_score")

    num_classes: int = attribute()

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.num_classes > 0, f"Number of classes must be greater than zero. Got: {self.num_classes}")

    @property
    def class_count(self) -> int:
        """The ``num_classes`` attribute."""
        return self.num_classes


@register
@dataclass(frozen=True, kw_only=True)
class DetectionOutput8(_DetectionOutputBase):
    """DetectionOutput-1 without ``num_classes``: the class predictions' shape gives it. Spec: DetectionOutput-8."""

    introduced = 8
