"""PSROIPooling-1 (R-FCN): position-sensitive pooling of boxes ``[batch_id, x1, y1, x2, y2]`` into
``[NUM_ROIS, output_dim, group_size, group_size]``, bin ``(i, j)`` of output channel ``c`` reading its own input
channel.

Values follow OpenVINO's reference (``reference/psroi_pooling.hpp``) in its order of operations: box
coordinates in f32 whatever the element type, sums in the element type (f16 and bf16 in f32, rounded once;
f64 in f64):

- average: corners ``roundf(x) * scale`` and ``(roundf(x) + 1) * scale``; bin ``(i, j)`` covers the pixels from
  ``floor(start + j * bin)`` (at most the last pixel) to ``ceil(start + (j + 1) * bin)`` (at most the size) of
  input channel ``(c * group + i) * group + j``, summed row by row and divided by its pixel count (an empty bin
  is 0 / 0 = NaN);
- bilinear: corners ``x * scale`` (normalised to [0, 1]); each output value averages ``spatial_bins_y x
  spatial_bins_x`` bilinear samples, sample ``(y, x)`` of input channel ``(y * bins_x + x) * output_dim + c``,
  at ``j * (bin * (size - 1) / (group - 1)) + (start + x * bin) * (size - 1)`` (a single bin: its centre);
  samples at or beyond the map's far edge add nothing but still count.

Stricter than OpenVINO where its reference reads outside the data: batch ids outside ``[0, N)``, average bins
starting before the map, bilinear samples before it (negative coordinates convert to huge unsigned indices
there) and NaN coordinates are refused. openvino 2026.4.1 folds no PSROIPooling: its CPU plugin judges it, bit
for bit for average pooling and within 4 ULP for bilinear, on boxes inside the map (where a bin starts past the
far edge the plugin gives 0, the reference pools the last pixel, as irgraph does; for bilinear samples past the
edge or maps one pixel wide it differs too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.detection.roi_align import wide_dtype
from irgraph.ops.numeric import round_float, round_half_away, truncate_to_int
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, shape_text
from irgraph.ops.registry import register

MODES = ("average", "bilinear")
F32 = np.float32


@register
@dataclass(frozen=True)
class PSROIPooling(Op):
    """Position-sensitive average or bilinear pooling of boxes. Spec: PSROIPooling-1."""

    type_name = "PSROIPooling"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("rois"))
    attribute_order = ("output_dim", "group_size", "spatial_scale", "mode", "spatial_bins_x", "spatial_bins_y")
    cpu_plugin_differs = ("openvino 2026.4.1's plugin gives 0 for an average bin starting past the map's far edge "
                          "(the reference pools the last pixel), and other values for bilinear samples past the edge "
                          "and maps one pixel wide; its bilinear sums are a few ULP off")

    output_dim: int = attribute()
    spatial_scale: float = attribute()
    group_size: int = attribute(1)
    mode: str = attribute("average")
    spatial_bins_x: int = attribute(1)
    spatial_bins_y: int = attribute(1)

    def __post_init__(self) -> None:
        check(self.mode in MODES, f"Expected 'average' or 'bilinear' mode. Got {self.mode}")

    @property
    def channels_needed(self) -> int:
        """Input channels the attributes address."""
        if self.mode == "average":
            return self.output_dim * self.group_size * self.group_size
        return self.output_dim * self.spatial_bins_x * self.spatial_bins_y

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[NUM_ROIS, output_dim, group_size, group_size]`` of the data's type (OpenVINO's shape_infer)."""
        data, rois = inputs
        check(data.element_type.is_dynamic or data.element_type.is_real,
              f"Feature maps' data type must be floating point. Got {data.element_type}")
        check(rois.element_type.is_dynamic or rois.element_type.is_real,
              f"Coords' data type must be floating point. Got {rois.element_type}")
        check(self.group_size > 0, f"group_size has to be greater than 0. Got: {self.group_size}")
        if self.mode == "bilinear":
            check(self.spatial_bins_x > 0, f"spatial_bins_x has to be greater than 0. Got: {self.spatial_bins_x}")
            check(self.spatial_bins_y > 0, f"spatial_bins_y has to be greater than 0. Got: {self.spatial_bins_y}")
        scale = np.float32(self.spatial_scale)
        check(bool(np.isfinite(scale)) and scale >= np.finfo(np.float32).tiny,
              f"The spatial scale attribute should be a positive floating point number. Got: {self.spatial_scale}")
        check(data.shape.rank_is_dynamic or data.shape.rank == 4,
              f"Expected a 4D tensor for the feature maps input. Got: {data.shape}")
        if not data.shape.rank_is_dynamic:
            what = "group_size * group_size" if self.mode == "average" else "spatial_bins_x * spatial_bins_y"
            check(data.shape[1].compatible(Dim.static(self.channels_needed)),
                  f"Number of input's channels must be a multiply of output_dim * {what}. Got: {data.shape[1]}, "
                  f"expected {self.channels_needed}")
        count = Dim.dynamic()
        if not rois.shape.rank_is_dynamic:
            check(rois.shape.rank == 2,
                  f"Expected a 2D tensor for the ROIs input with box coordinates. Got: {rois.shape}")
            check(rois.shape[1].compatible(Dim.static(5)), "The second dimension of ROIs input should contain batch "
                  f"id and box coordinates. This dimension is expected to be equal to 5. Got: {rois.shape[1]}")
            count = rois.shape[0]
        check(self.output_dim >= 0, f"output_dim must be non-negative. Got: {self.output_dim}")
        group = Dim.static(self.group_size)
        return [TensorType(data.element_type, Shape((count, Dim.static(self.output_dim), group, group)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every box's position-sensitive bins."""
        data, rois = inputs
        check(data.ndim == 4 and data.shape[1] == self.channels_needed, "PSROIPooling needs data [N, "
              f"{self.channels_needed}, H, W] for these attributes. Got: {shape_text(data.shape)}")
        check(rois.ndim == 2 and rois.shape[1] == 5, f"Expected ROIs of shape [NUM_ROIS, 5]. Got: "
              f"{shape_text(rois.shape)}")
        check(data.dtype.kind in "fV" and rois.dtype.kind in "fV", "Feature maps and coords must be floating point")
        shape = (rois.shape[0], self.output_dim, self.group_size, self.group_size)
        if not np.prod(shape):
            return [np.zeros(shape, data.dtype)]
        check(data.shape[2] > 0 and data.shape[3] > 0, "PSROIPooling has no pixel to pool in data of shape "
              f"{shape_text(data.shape)} (OpenVINO's reference reads outside it)")
        batch = truncate_to_int(rois[:, 0].astype(np.float64), 32)
        outside = (batch < 0) | (batch >= data.shape[0])
        if outside.any():
            first = int(np.argmax(outside))
            raise OpError(f"ROI batch id must be in the range of [0, N-1]: ROI {first} has {rois[first, 0]} and N is "
                          f"{data.shape[0]}")
        corners = rois[:, 1:].astype(F32)
        if np.isnan(corners).any():
            raise OpError("PSROIPooling: a NaN box coordinate has no pixel (OpenVINO's reference reads outside the "
                          "data)")
        wide = wide_dtype(data.dtype)
        pixels = data.astype(wide)
        with np.errstate(all="ignore"):
            pooled = self._average(pixels, corners, batch) if self.mode == "average" else \
                self._bilinear(pixels, corners, batch)
        return [round_float(pooled, data.dtype)]

    def _average(self, pixels: np.ndarray, corners: np.ndarray, batch: np.ndarray) -> np.ndarray:
        _, _, height, width = pixels.shape
        group, scale = self.group_size, F32(self.spatial_scale)
        rounded = round_half_away(corners)
        start_w, start_h = rounded[:, 0] * scale, rounded[:, 1] * scale
        end_w, end_h = (rounded[:, 2] + F32(1)) * scale, (rounded[:, 3] + F32(1)) * scale
        rows = self._bins(start_h, end_h, height)  # (first, count), each [rois, group]
        columns = self._bins(start_w, end_w, width)
        count = batch.shape[0]
        # input channel (c * group + i) * group + j for output (c, i, j)
        channel = np.arange(self.output_dim * group * group).reshape(1, self.output_dim, group, group)
        plane = (batch.reshape(-1, 1, 1, 1).astype(np.int64) * pixels.shape[1] + channel) * height
        first_row, tall = rows[0][:, None, :, None], rows[1][:, None, :, None]
        first_column, wide_bins = columns[0][:, None, None, :], columns[1][:, None, None, :]
        flat = pixels.reshape(-1)
        total = np.zeros((count, self.output_dim, group, group), pixels.dtype)
        for dh in range(int(rows[1].max(initial=0))):
            for dw in range(int(columns[1].max(initial=0))):
                inside = (dh < tall) & (dw < wide_bins)
                index = (plane + np.where(inside, first_row + dh, 0)) * width + np.where(inside, first_column + dw, 0)
                total = total + np.where(inside, flat[index], pixels.dtype.type(0))
        area = (tall * wide_bins).astype(pixels.dtype)
        return total / area

    def _bins(self, start: np.ndarray, end: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Average mode's bins along one axis: first pixel and pixel count, ``[rois, group]``."""
        group = self.group_size
        step = (end - start) / F32(group)
        index = np.arange(group, dtype=F32)[None, :]
        low = np.floor(start[:, None] + index * step[:, None])
        high = np.ceil(start[:, None] + (index + F32(1)) * step[:, None])
        if (low < 0).any():
            raise OpError("PSROIPooling average: a bin starts before the map (OpenVINO's reference converts the "
                          "negative start to an unsigned index and reads outside the data)")
        first = np.minimum(truncate_to_int(low), size - 1)
        last = np.minimum(truncate_to_int(np.maximum(high, 0)), size)
        if (last < first).any():
            raise OpError("PSROIPooling average: a bin ends before it starts (OpenVINO's reference wraps its "
                          "unsigned width and reads outside the data)")
        return first, last - first

    def _bilinear(self, pixels: np.ndarray, corners: np.ndarray, batch: np.ndarray) -> np.ndarray:
        _, channels, height, width = pixels.shape
        group, scale = self.group_size, F32(self.spatial_scale)
        bins_x, bins_y = self.spatial_bins_x, self.spatial_bins_y
        start_w, start_h, end_w, end_h = (corners[:, i] * scale for i in range(4))
        bin_w = (end_w - start_w) / F32(bins_x)
        bin_h = (end_h - start_h) / F32(bins_y)
        index = np.arange(group, dtype=F32)
        wide = pixels.dtype.type
        plane = batch.reshape(-1, 1, 1, 1).astype(np.int64) * channels
        outputs = np.arange(self.output_dim).reshape(1, -1, 1, 1)
        flat = pixels.reshape(-1)
        total = np.zeros((batch.shape[0], self.output_dim, group, group), wide)
        for by in range(bins_y):
            for bx in range(bins_x):
                x = self._points(start_w + F32(bx) * bin_w, bin_w, width, index)[:, None, None, :]
                y = self._points(start_h + F32(by) * bin_h, bin_h, height, index)[:, None, :, None]
                if (x < 0).any() or (y < 0).any():
                    raise OpError("PSROIPooling bilinear: a sample lies before the map (OpenVINO's reference converts "
                                  "its negative coordinate to an unsigned index and reads outside the data)")
                inside = (x < F32(width)) & (y < F32(height))
                x, y = np.where(inside, x, F32(0)), np.where(inside, y, F32(0))
                left, top = np.floor(x), np.floor(y)
                right = np.minimum(np.ceil(x), F32(width - 1))
                bottom = np.minimum(np.ceil(y), F32(height - 1))
                base = (plane + (by * bins_x + bx) * self.output_dim + outputs) * height

                def at(row: np.ndarray, column: np.ndarray, base: np.ndarray = base) -> np.ndarray:
                    return flat[(base + row.astype(np.int64)) * width + column.astype(np.int64)]

                dx, dy = (x - left).astype(wide), (y - top).astype(wide)
                top_left, top_right = at(top, left), at(top, right)
                bottom_left, bottom_right = at(bottom, left), at(bottom, right)
                upper = top_left + (top_right - top_left) * dx
                lower = bottom_left + (bottom_right - bottom_left) * dx
                total = np.where(inside, total + (upper + (lower - upper) * dy), total)
        return total / wide(bins_x * bins_y)

    def _points(self, bin_start: np.ndarray, bin_size: np.ndarray, size: int, index: np.ndarray) -> np.ndarray:
        """Bilinear mode's sample coordinate of every group position, ``[rois, group]``."""
        last = F32(size - 1)
        if self.group_size > 1:
            step = bin_size * last / F32(self.group_size - 1)
            return index[None, :] * step[:, None] + (bin_start * last)[:, None]
        return ((bin_start + bin_start + bin_size) * last / F32(2))[:, None]
