"""ExperimentalDetectronROIFeatureExtractor-6: Mask R-CNN's FPN RoIAlign: each roi pooled from its pyramid level.

OpenVINO's reference (``reference/experimental_detectron_roi_feature_extractor.cpp``, openvino 2026.4.1; it
neither folds nor evaluates the op there):

- a roi's level is ``floor(log2(sqrt(area) / 224 + 1e-6) + 2)`` clamped to the levels; a roi of no positive area
  goes to no level and its features stay 0;
- RoIAlign (Caffe2's) on level ``l`` of batch 0 with spatial scale ``1 / pyramid_scales[l]``: the roi shifted by
  -0.5 when ``aligned``, at least 1 x 1, ``sampling_ratio`` samples per bin side (0: ``ceil(side / output_size)``);
  a sample outside ``[-1, size]`` adds 0, others are clamped at 0 and interpolated bilinearly; each bin is the mean
  of its samples, summed in float32 in the reference's order;
- outputs: features ``[rois, channels, output_size, output_size]`` and the rois as given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register

F32 = np.float32


def roi_levels(rois: np.ndarray, levels: int) -> np.ndarray:
    """Each roi's pyramid level (``levels`` for rois of no positive area), in float32 as the reference."""
    x0, y0, x1, y1 = (rois[:, k].astype(F32) for k in range(4))
    area = (x1 - x0) * (y1 - y0)
    with np.errstate(all="ignore"):
        scaled = np.sqrt(area) / F32(224)
        level = np.floor(np.log2(scaled + F32(1e-6)) + F32(2))
    level = np.clip(np.nan_to_num(level, nan=0, neginf=0, posinf=levels - 1), 0, levels - 1).astype(np.int64)
    return np.where(area > 0, level, levels)


@register
@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class ExperimentalDetectronROIFeatureExtractor(Op):
    """RoIAlign over a feature pyramid (module docstring). Spec: ExperimentalDetectronROIFeatureExtractor-6."""

    type_name = "ExperimentalDetectronROIFeatureExtractor"
    introduced = 6
    inputs = Inputs(fixed=(InputSpec("input_rois"),), variadic=InputSpec("pyramid_level"), minimum=2)
    tolerance = Tolerance(ulp=4, sum_eps=8)  # a mean of bilinear samples; the reference may fuse multiply-adds

    output_size: int = attribute()
    sampling_ratio: int = attribute()
    pyramid_scales: tuple[int, ...] = attribute()
    aligned: bool = attribute(False)

    def __post_init__(self) -> None:
        check(self.output_size > 0, f"output_size must be positive. Got: {self.output_size}")
        check(all(scale > 0 for scale in self.pyramid_scales), f"pyramid_scales must be positive. Got: "
              f"{list(self.pyramid_scales)}")

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Features and rois."""
        return 2

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[rois, channels, output_size, output_size]`` and ``[rois, 4]`` (OpenVINO's shape rule)."""
        rois = inputs[0].shape
        count = Dim.dynamic()
        if not rois.rank_is_dynamic:
            check(rois.rank == 2, "Input rois rank must be equal to 2.")
            check(rois[1].compatible(Dim.static(4)), "The last dimension of the 'input_rois' input must be equal "
                  f"to 4. Got: {rois[1]}")
            count = rois[0]
        channels: Dim | None = None
        for level in inputs[1:]:
            shape = level.shape
            if shape.rank_is_dynamic:
                continue
            if shape.rank != 4:
                raise OpError(f"Rank of each element of the pyramid must be equal to 4. Got: {shape.rank}")
            check(shape[0].compatible(Dim.static(1)), "The first dimension of each pyramid element must be equal to "
                  f"1. Got: {shape[0]}")
            channels = shape[1] if channels is None else channels.merge(shape[1])
            check(channels is not None, "The number of channels must be the same for all layers of the pyramid.")
        size = Dim.static(self.output_size)
        out_type = inputs[0].element_type
        return [TensorType(out_type, Shape((count, channels or Dim.dynamic(), size, size))),
                TensorType(out_type, Shape((count, Dim.static(4))))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each roi RoIAligned on its level (module docstring)."""
        rois = np.asarray(inputs[0])
        return [self.features(rois.astype(F32), [np.asarray(x).astype(F32) for x in inputs[1:]]).astype(rois.dtype),
                rois.copy()]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per feature, the mean of the samples' ``sum |w_i * x_i|`` (the same pooling of ``|features|`` in f64)."""
        rois = np.asarray(inputs[0])
        levels = [np.abs(np.asarray(x).astype(np.float64)) for x in inputs[1:]]
        return [self.features(rois.astype(F32), levels, np.float64), np.zeros(rois.shape)]

    def features(self, rois: np.ndarray, levels: Sequence[np.ndarray], dtype: type = F32) -> np.ndarray:
        """The pooled features ``[R, C, S, S]``, summed in ``dtype`` (float32: the reference's order)."""
        check(len(levels) <= len(self.pyramid_scales), f"{len(levels)} pyramid levels but {len(self.pyramid_scales)}"
              " pyramid_scales")
        channels = levels[0].shape[1]
        for level in levels:
            if level.ndim != 4 or level.shape[1] != channels or not level.shape[0] or 0 in level.shape[2:]:
                shapes = [list(x.shape) for x in levels]
                raise OpError(f"pyramid levels must be non-empty [1, C, H, W] of one channel count. Got: {shapes}")
        size = self.output_size
        result: np.ndarray = np.zeros((len(rois), channels, size, size), dtype)
        assigned = roi_levels(rois, len(levels))
        planes = [level[0].astype(dtype, copy=False) for level in levels]
        for index in np.flatnonzero(assigned < len(levels)).tolist():
            at = int(assigned[index])  # the roi's pyramid level
            result[index] = self._align(rois[index], planes[at], F32(1.0) / F32(self.pyramid_scales[at]), dtype)
        return result

    def _align(self, roi: np.ndarray, data: np.ndarray, scale: np.float32, dtype: type) -> np.ndarray:
        """Caffe2's RoIAlign of one roi on ``data [C, H, W]`` (float32 geometry as the reference)."""
        height, width = data.shape[1:]
        size = self.output_size
        offset = F32(0.5) if self.aligned else F32(0)
        start_w, start_h = roi[0] * scale - offset, roi[1] * scale - offset
        end_w, end_h = roi[2] * scale - offset, roi[3] * scale - offset
        roi_w, roi_h = max(end_w - start_w, F32(1)), max(end_h - start_h, F32(1))
        bin_h, bin_w = roi_h / F32(size), roi_w / F32(size)
        grid_h = self.sampling_ratio if self.sampling_ratio > 0 else int(math.ceil(roi_h / F32(size)))
        grid_w = self.sampling_ratio if self.sampling_ratio > 0 else int(math.ceil(roi_w / F32(size)))
        cells = np.arange(size, dtype=F32)
        total: np.ndarray = np.zeros((data.shape[0], size, size), dtype)
        for iy in range(grid_h):
            y = start_h + cells * bin_h + (F32(iy) + F32(0.5)) * bin_h / F32(grid_h)  # [S] over ph
            for ix in range(grid_w):
                x = start_w + cells * bin_w + (F32(ix) + F32(0.5)) * bin_w / F32(grid_w)  # [S] over pw
                total += self._bilinear(data, y, x, dtype)
        return total / dtype(grid_h * grid_w)

    @staticmethod
    def _bilinear(data: np.ndarray, y: np.ndarray, x: np.ndarray, dtype: type) -> np.ndarray:
        """``w1 * d1 + w2 * d2 + w3 * d3 + w4 * d4`` at every (y[ph], x[pw]), 0 outside ``[-1, size]``."""
        height, width = data.shape[1:]

        def axis(v: np.ndarray, limit: int) -> tuple[np.ndarray, ...]:
            inside = (v >= F32(-1)) & (v <= F32(limit))
            v = np.maximum(v, F32(0))
            low = v.astype(np.int64)
            at_edge = low >= limit - 1
            low = np.where(at_edge, limit - 1, low)
            high = np.where(at_edge, limit - 1, low + 1)
            v = np.where(at_edge, low.astype(F32), v)
            frac = (v - low.astype(F32)).astype(F32)
            return inside, low, high, frac, (F32(1) - frac).astype(F32)

        in_y, y_low, y_high, ly, hy = axis(y, height)
        in_x, x_low, x_high, lx, hx = axis(x, width)
        inside = (in_y[:, None] & in_x[None, :]).astype(dtype)
        weights = [(hy[:, None] * hx[None, :]), (hy[:, None] * lx[None, :]), (ly[:, None] * hx[None, :]),
                   (ly[:, None] * lx[None, :])]
        rows_low, rows_high = y_low[:, None], y_high[:, None]
        corners = [data[:, rows_low, x_low[None, :]], data[:, rows_low, x_high[None, :]],
                   data[:, rows_high, x_low[None, :]], data[:, rows_high, x_high[None, :]]]
        value = weights[0].astype(dtype) * corners[0]
        for weight, corner in zip(weights[1:], corners[1:], strict=True):
            value = value + weight.astype(dtype) * corner
        return value * inside
