"""ROIPooling-2 (Fast R-CNN): each box ``[batch_id, x1, y1, x2, y2]`` pooled into ``pooled_h x pooled_w`` bins, by
the maximum over each bin's pixels or by one bilinear sample per bin.

Values follow OpenVINO's reference (``reference/roi_pooling.hpp``) in its order of operations, in f32 (f16 and
bf16 rounded once at the end, f64 in f64):

- max: box corners ``int(std::round(c * spatial_scale))`` (halves away from zero), at least 1x1; bin edges
  ``floor(i * size / pooled)`` and ``ceil((i + 1) * size / pooled)`` offset by the box and clipped to the map;
  an empty bin is 0; a bin's pixels are scanned row by row with ``r = d < r ? r : d`` from the lowest finite
  value, so a NaN is kept only when it is the last pixel, -inf pixels leave the lowest value and of two
  equal zeros the later one wins (openvino 2026.4.1's CPU plugin starts from the first pixel and keeps the
  earlier of equals: it differs there);
- bilinear: corners normalised to [0, 1] span the map ``(size - 1)``; bin ``i`` samples
  ``i * (span / (pooled - 1)) + start * (size - 1)``, the last bin exactly ``(size - 1) * end`` and a single
  bin the centre (computed in double); samples outside the map give 0.

The batch id is ``int(c)`` of the first box value. Stricter than OpenVINO where it reads outside the data:
batch ids outside ``[0, N)`` (OpenVINO asserts) and NaN bilinear samples are refused. openvino 2026.4.1
folds no ROIPooling: its CPU plugin judges it (bit for bit for max pooling of ordinary values, within 3 ULP for
bilinear). Max pooling loops over the offsets of the largest bin of a
group of ROIs, bilinear pooling over nothing; both vectorised over ROIs, channels and bins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.detection.roi_align import CHUNK_ELEMENTS, wide_dtype
from irgraph.ops.numeric import round_float, round_half_away, truncate_to_int
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, shape_text
from irgraph.ops.registry import register

METHODS = ("max", "bilinear")


@register
@dataclass(frozen=True)
class ROIPooling(Op):
    """The maximum (or a bilinear sample) of each bin of each box. Spec: ROIPooling-1 (OpenVINO's opset2)."""

    type_name = "ROIPooling"
    introduced = 2
    inputs = Inputs.of(InputSpec("data"), InputSpec("rois"))

    attribute_order = ("output_size", "output_roi", "pooled_h", "pooled_w", "spatial_scale", "method")
    cpu_plugin_differs = ("openvino 2026.4.1's plugin starts a max bin from its first pixel and keeps a value unless a "
                          "later one is greater: a NaN first pixel stays NaN (the reference skips it unless last), "
                          "-inf pixels give -inf (the reference the lowest float), of equal zeros the earlier wins; "
                          "its bilinear bins are a few ULP off")

    pooled_h: int = attribute()
    pooled_w: int = attribute()
    spatial_scale: float = attribute()
    method: str = attribute("max")
    output_size: tuple[int, ...] = attribute(())
    """OpenVINO's serializer writes the pooled size again as ``output_size`` and ``output_roi`` (before the others);
    its reader sets them first and ``pooled_h``/``pooled_w`` then override them. Kept to re-write such files as
    they were."""
    output_roi: tuple[int, ...] = attribute(())

    def __post_init__(self) -> None:
        check(self.method in METHODS,
              f"Pooling method attribute should be either 'max' or 'bilinear'. Got: {self.method}")

    def to_attributes(self) -> dict[str, str]:
        """The attribute texts; ``output_size`` and ``output_roi`` only where the read file had them."""
        texts = super().to_attributes()
        for name in ("output_size", "output_roi"):
            if not getattr(self, name):
                del texts[name]
        return texts

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[NUM_ROIS, C, pooled_h, pooled_w]`` of the data's type (OpenVINO's shape_infer)."""
        data, rois = inputs
        check(data.element_type.is_dynamic or data.element_type.is_real, "The data type for input and ROIs is "
              f"expected to be a floating point type. Got: {data.element_type} and: {rois.element_type}")
        check(rois.element_type.is_dynamic or rois.element_type.is_real, "The data type for input and ROIs is "
              f"expected to be a floating point type. Got: {data.element_type} and: {rois.element_type}")
        element_type = checked(data.element_type.merge(rois.element_type), "Type of feature maps (inputs) and ROIs "
                               f"is expected to be the same. Got: {data.element_type} and: {rois.element_type}")
        check(data.shape.rank_is_dynamic or data.shape.rank == 4,
              f"Expected a 4D tensor for the feature maps input. Got: {data.shape}")
        count = Dim.dynamic()
        if not rois.shape.rank_is_dynamic:
            check(rois.shape.rank == 2,
                  f"Expected a 2D tensor for the ROIs input with box coordinates. Got: {rois.shape}")
            check(rois.shape[1].compatible(Dim.static(5)), "The second dimension of ROIs input should contain batch "
                  f"id and box coordinates. This dimension is expected to be equal to 5. Got: {rois.shape[1]}")
            count = rois.shape[0]
        check(self.pooled_h >= 1 and self.pooled_w >= 1, "Pooled size attributes pooled_h and pooled_w should "
              f"should be positive integers. Got: {self.pooled_h} and: {self.pooled_w}respectively")
        scale = np.float32(self.spatial_scale)
        check(bool(np.isfinite(scale)) and scale >= np.finfo(np.float32).tiny,
              f"The spatial scale attribute should be a positive floating point number. Got: {self.spatial_scale}")
        channels = Dim.dynamic() if data.shape.rank_is_dynamic else data.shape[1]
        return [TensorType(element_type, Shape((count, channels, Dim.static(self.pooled_h),
                                                Dim.static(self.pooled_w))))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every box's pooled bins."""
        data, rois = inputs
        check(data.ndim == 4, f"Expected a 4D tensor for the feature maps input. Got: {shape_text(data.shape)}")
        check(rois.ndim == 2 and rois.shape[1] == 5, f"Expected ROIs of shape [NUM_ROIS, 5]. Got: "
              f"{shape_text(rois.shape)}")
        check(data.dtype == rois.dtype and data.dtype.kind in "fV", "Type of feature maps (inputs) and ROIs is "
              f"expected to be the same floating point type. Got: {data.dtype} and: {rois.dtype}")
        check(self.pooled_h >= 1 and self.pooled_w >= 1, "pooled_h and pooled_w must be positive")
        wide = wide_dtype(data.dtype)
        boxes = rois.astype(wide)
        batch = truncate_to_int(boxes[:, 0], 32)
        outside = (batch < 0) | (batch >= data.shape[0])
        if outside.any():
            first = int(np.argmax(outside))
            raise OpError(f"ROI batch id must be in the range of [0, N-1]: ROI {first} has {rois[first, 0]} and N is "
                          f"{data.shape[0]}")
        pixels = data.astype(wide)
        if pixels.size == 0:  # every bin is empty (max) or outside the map (bilinear)
            return [np.zeros((rois.shape[0], data.shape[1], self.pooled_h, self.pooled_w), data.dtype)]
        with np.errstate(all="ignore"):
            if self.method == "max":
                pooled = self._max(pixels, boxes, batch)
            else:
                pooled = self._bilinear(pixels, boxes, batch)
        return [round_float(pooled, data.dtype)]

    def _max(self, pixels: np.ndarray, boxes: np.ndarray, batch: np.ndarray) -> np.ndarray:
        """Bins of whole pixels: edges per ROI and bin, then a masked scan over the largest bin's offsets."""
        count, (_, channels, height, width) = boxes.shape[0], pixels.shape
        wide = pixels.dtype.type
        scale = wide(np.float32(self.spatial_scale))
        corners = truncate_to_int(round_half_away(boxes[:, 1:] * scale), 32).astype(np.int32)
        start_w, start_h, end_w, end_h = corners.T
        size_h = np.maximum(end_h - start_h + np.int32(1), np.int32(1))  # int32 arithmetic wraps as C++'s does
        size_w = np.maximum(end_w - start_w + np.int32(1), np.int32(1))
        rows = self._edges(size_h, start_h, self.pooled_h, height, wide)  # each [rois, pooled]
        columns = self._edges(size_w, start_w, self.pooled_w, width, wide)
        result = np.zeros((count, channels, self.pooled_h, self.pooled_w), wide)
        span_h, span_w = rows[1] - rows[0], columns[1] - columns[0]
        lowest = wide(np.finfo(wide).min)
        chunk = max(1, CHUNK_ELEMENTS // (channels * self.pooled_h * self.pooled_w))
        for first in range(0, count, chunk):
            part = slice(first, first + chunk)
            top, left = rows[0][part, None, :, None], columns[0][part, None, None, :]
            tall, wide_bins = span_h[part, None, :, None], span_w[part, None, None, :]
            empty = (tall <= 0) | (wide_bins <= 0)
            pooled = np.broadcast_to(np.where(empty, wide(0), lowest), tall.shape[:1] + (channels,) + empty.shape[2:])
            base = (batch[part, None, None, None].astype(np.int64) * channels
                    + np.arange(channels).reshape(1, -1, 1, 1)) * height
            flat = pixels.reshape(-1)
            for dh in range(max(int(span_h[part].max(initial=0)), 0)):
                for dw in range(max(int(span_w[part].max(initial=0)), 0)):
                    inside = (dh < tall) & (dw < wide_bins)
                    index = (base + np.where(inside, top + dh, 0)) * width + np.where(inside, left + dw, 0)
                    value = flat[index]
                    pooled = np.where(inside & ~(value < pooled), value, pooled)
            result[part] = pooled
        return result

    @staticmethod
    def _edges(size: np.ndarray, start: np.ndarray, pooled: int, limit: int, wide: type) -> tuple[np.ndarray, ...]:
        """Each bin's [begin, end) along one axis, ``[rois, pooled]``, clipped to ``[0, limit]``."""
        bin_size = (size.astype(wide) / wide(pooled))[:, None]
        index: np.ndarray = np.arange(pooled, dtype=wide)[None, :]
        begin = truncate_to_int(np.floor(index * bin_size), 32)
        end = truncate_to_int(np.ceil((index + wide(1)) * bin_size), 32)
        offset = start.astype(np.int64)[:, None]
        return (np.clip((begin + offset).astype(np.int32), 0, limit).astype(np.int64),
                np.clip((end + offset).astype(np.int32), 0, limit).astype(np.int64))

    def _bilinear(self, pixels: np.ndarray, boxes: np.ndarray, batch: np.ndarray) -> np.ndarray:
        """One sample per bin from the box corners normalised to the map."""
        _, channels, height, width = pixels.shape
        wide = pixels.dtype.type
        start_w, start_h, end_w, end_h = (boxes[:, i] for i in range(1, 5))
        y = self._samples(start_h, end_h, self.pooled_h, height, wide)[:, :, None]  # [rois, pooled_h, 1]
        x = self._samples(start_w, end_w, self.pooled_w, width, wide)[:, None, :]  # [rois, 1, pooled_w]
        if np.isnan(y).any() or np.isnan(x).any():
            raise OpError("ROIPooling bilinear: a NaN box coordinate makes a NaN sample, whose pixel OpenVINO's "
                          "reference reads outside the data")
        valid = (y >= 0) & (y <= wide(height - 1)) & (x >= 0) & (x <= wide(width - 1))
        y, x = np.where(valid, y, 0), np.where(valid, x, 0)
        top, left = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
        bottom = np.minimum(np.ceil(y).astype(np.int64), height - 1)
        right = np.minimum(np.ceil(x).astype(np.int64), width - 1)
        planes = (batch.astype(np.int64)[:, None, None, None] * channels
                  + np.arange(channels).reshape(1, -1, 1, 1)) * height
        flat = pixels.reshape(-1)

        def at(row: np.ndarray, column: np.ndarray) -> np.ndarray:
            return flat[(planes + row[:, None]) * width + column[:, None]]

        top_left, top_right = at(top, left), at(top, right)
        bottom_left, bottom_right = at(bottom, left), at(bottom, right)
        dx = (x - left.astype(wide))[:, None]
        dy = (y - top.astype(wide))[:, None]
        upper = top_left + (top_right - top_left) * dx
        lower = bottom_left + (bottom_right - bottom_left) * dx
        return np.where(valid[:, None], upper + (lower - upper) * dy, wide(0))

    @staticmethod
    def _samples(start: np.ndarray, end: np.ndarray, pooled: int, size: int, wide: type) -> np.ndarray:
        """The sample coordinate of each bin along one axis, ``[rois, pooled]``."""
        last = wide(size - 1)
        if pooled == 1:  # 0.5 * (start + end) * (size - 1) in double, then T
            centre = np.float64(0.5) * (start + end).astype(np.float64) * np.float64(size - 1)
            return centre.astype(wide)[:, None]
        span = (end - start) * last
        step = span / wide(pooled - 1)
        index: np.ndarray = np.arange(pooled, dtype=wide)[None, :]
        samples = index * step[:, None] + (start * last)[:, None]
        samples[:, -1] = last * end
        return samples
