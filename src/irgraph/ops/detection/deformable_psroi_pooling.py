"""DeformablePSROIPooling-1: position-sensitive RoI pooling whose bins move by learned offsets (Deformable ConvNets).

OpenVINO's reference (``reference/deformable_psroi_pooling.hpp``, openvino 2026.4.1; it neither folds nor
evaluates the op there, and reads no ``mode``):

- a roi ``(batch, x1, y1, x2, y2)`` (batch < 0: all zeros) has its corners rounded half away from zero, scaled by
  ``spatial_scale`` and moved by -0.5 (the far corner + 1 first); sides at least 0.1;
- output ``[rois, output_dim, group_size, group_size]``: bin ``(c, h, w)`` reads input channel
  ``(c * group_size + h) * group_size + w``; with offsets ``[rois, 2 * k, part_size, part_size]`` it moves by
  ``trans_std * offset * roi side``, the offset of class ``c // (output_dim / k)`` at part
  ``(h * part_size // group_size, w * part_size // group_size)``;
- each bin is the mean of its ``spatial_bins_y x spatial_bins_x`` sub-bin corners that lie in
  ``[-0.5, side - 0.5]``, clamped into the map and interpolated bilinearly (0 when none does), summed in the
  input type in the reference's order.
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
MODES = ("bilinear_deformable", "bilinear")


@register
@dataclass(frozen=True, kw_only=True)  # required attributes follow optional ones
class DeformablePSROIPooling(Op):
    """Deformable position-sensitive RoI pooling (module docstring). Spec: DeformablePSROIPooling-1."""

    type_name = "DeformablePSROIPooling"
    introduced = 1
    inputs = Inputs.optional(2, InputSpec("data"), InputSpec("rois"), InputSpec("offsets"))
    tolerance = Tolerance(ulp=4, sum_eps=8)  # a mean of bilinear samples; compilers may fuse multiply-adds
    cpu_plugin_differs = ("openvino 2026.4.1's CPU plugin stops at the first roi of batch -1 (zeros for it and every "
                          "roi after it); its reference skips that roi only")

    output_dim: int = attribute()
    spatial_scale: float = attribute()
    group_size: int = attribute(1)
    mode: str = attribute("bilinear_deformable")
    spatial_bins_x: int = attribute(1)
    spatial_bins_y: int = attribute(1)
    trans_std: float = attribute(1.0)
    part_size: int = attribute(1)

    def __post_init__(self) -> None:
        check(self.mode in MODES, f"DeformablePSROIPooling: 'mode' must be one of {', '.join(MODES)}. Got: "
              f"{self.mode!r}")
        check(self.spatial_bins_x > 0 and self.spatial_bins_y > 0 and self.part_size > 0,
              "DeformablePSROIPooling: spatial_bins_x, spatial_bins_y and part_size must be positive. Got: "
              f"{self.spatial_bins_x}, {self.spatial_bins_y}, {self.part_size}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[rois, output_dim, group_size, group_size]`` of the data's type (OpenVINO's shape rule)."""
        for index, rank, which in ((0, 4, "First"), (1, 2, "Second"), (2, 4, "Third")):
            if index < len(inputs):
                shape = inputs[index].shape
                if not shape.rank_is_dynamic and shape.rank != rank:
                    raise OpError(f"{which} input rank must be compatible with {rank} (input rank: {shape.rank})")
        check(self.output_dim > 0, "Value of `output_dim` attribute has to be greater than 0 ")
        check(self.group_size > 0, "Value of `group_size` attribute has to be greater than 0 ")
        rois = inputs[1].shape
        count = Dim.dynamic() if rois.rank_is_dynamic else rois[0]
        group = Dim.static(self.group_size)
        return [TensorType(inputs[0].element_type, Shape((count, Dim.static(self.output_dim), group, group)))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each roi's bins (module docstring)."""
        data = np.asarray(inputs[0])
        return [self.pool(data, np.asarray(inputs[1]), np.asarray(inputs[2]) if len(inputs) == 3 else None,
                          data.dtype.type)]

    def term_magnitudes(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per output, the same pooling of ``|data|`` in f64 (the bilinear weights are at most 1)."""
        data = np.abs(np.asarray(inputs[0]).astype(np.float64))
        return [self.pool(data, np.asarray(inputs[1]), np.asarray(inputs[2]) if len(inputs) == 3 else None,
                          np.float64)]

    def pool(self, data: np.ndarray, rois: np.ndarray, offsets: np.ndarray | None, dtype: type) -> np.ndarray:
        """The pooled bins ``[R, output_dim, G, G]``, summed in ``dtype``."""
        batches, channels, height, width = data.shape
        group, dim = self.group_size, self.output_dim
        check(rois.ndim == 2 and rois.shape[1] == 5, f"DeformablePSROIPooling: rois must be [R, 5] (batch, x1, y1, "
              f"x2, y2). Got: {list(rois.shape)}")
        check(height > 0 and width > 0 or not len(rois), "DeformablePSROIPooling: the feature map is empty "
              f"({height} x {width}): OpenVINO's reference reads past it")
        check(channels >= dim * group * group, f"DeformablePSROIPooling: the data has {channels} channels, "
              f"output_dim x group_size^2 needs {dim * group * group}")
        result: np.ndarray = np.zeros((len(rois), dim, group, group), dtype)
        rois32 = rois.astype(F32)
        scale = F32(self.spatial_scale)
        bins_x, bins_y = self.spatial_bins_x, self.spatial_bins_y
        cells = np.arange(group)
        c_in = ((np.arange(dim)[:, None, None] * group + cells[None, :, None]) * group + cells[None, None, :])
        part_h = cells * self.part_size // group
        for index, roi in enumerate(rois32):
            batch = int(roi[0])
            if batch < 0:
                continue
            if batch >= batches:
                raise OpError(f"DeformablePSROIPooling: roi {index} names batch {batch} of {batches}")
            corners = round_half_away(roi[1:])
            x1, y1 = corners[0] * scale - F32(0.5), corners[1] * scale - F32(0.5)
            x2, y2 = (corners[2] + F32(1)) * scale - F32(0.5), (corners[3] + F32(1)) * scale - F32(0.5)
            roi_w, roi_h = max(x2 - x1, F32(0.1)), max(y2 - y1, F32(0.1))
            bin_w, bin_h = roi_w / F32(group), roi_h / F32(group)
            start_x = np.broadcast_to(x1 + cells.astype(F32)[None, None, :] * bin_w, (dim, group, group))
            start_y = np.broadcast_to(y1 + cells.astype(F32)[None, :, None] * bin_h, (dim, group, group))
            if offsets is not None and offsets.ndim == 4:
                move_x, move_y = self._offsets(offsets, index, part_h)
                start_x = start_x + move_x * roi_w
                start_y = start_y + move_y * roi_h
            sub_w, sub_h = bin_w / F32(bins_x), bin_h / F32(bins_y)
            planes = data[batch].astype(dtype, copy=False)
            total: np.ndarray = np.zeros((dim, group, group), dtype)
            legit = np.zeros((dim, group, group), np.int64)
            for sy in range(bins_y):
                y = (start_y + F32(sy) * sub_h).astype(F32)
                y_in = (y >= -0.5) & (y <= height - 0.5)
                y = np.clip(y, F32(0), F32(height - 1))
                for sx in range(bins_x):
                    x = (start_x + F32(sx) * sub_w).astype(F32)
                    inside = y_in & (x >= -0.5) & (x <= width - 0.5)
                    x = np.clip(x, F32(0), F32(width - 1))
                    value = self._bilinear(planes, c_in, y, x, dtype)
                    total = np.where(inside, total + value, total)
                    legit += inside
            with np.errstate(all="ignore"):
                result[index] = np.where(legit > 0, total / np.maximum(legit, 1).astype(dtype), dtype(0))
        return result

    def _offsets(self, offsets: np.ndarray, index: int, part_h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The x and y moves ``[output_dim, G, G]`` (``trans_std`` x offset) of one roi."""
        dim, part = self.output_dim, self.part_size
        coords = offsets.shape[1] // 2
        if coords == 0 or dim // coords == 0:
            raise OpError(f"DeformablePSROIPooling: offsets of {offsets.shape[1]} channels give no class for "
                          f"output_dim {dim} (OpenVINO divides by zero)")
        klass = np.arange(dim) // (dim // coords)
        if klass.max() >= coords or offsets.shape[2] < part or offsets.shape[3] < part or index >= len(offsets):
            raise OpError(f"DeformablePSROIPooling: offsets {list(offsets.shape)} are too small for output_dim "
                          f"{dim}, part_size {part} and roi {index} (OpenVINO reads past them)")
        std = offsets.dtype.type(self.trans_std)
        x_moves = offsets[index, klass * 2][:, part_h][:, :, part_h] * std
        y_moves = offsets[index, klass * 2 + 1][:, part_h][:, :, part_h] * std
        return x_moves.astype(F32), y_moves.astype(F32)

    @staticmethod
    def _bilinear(planes: np.ndarray, c_in: np.ndarray, y: np.ndarray, x: np.ndarray, dtype: type) -> np.ndarray:
        """The reference's interpolation at clamped ``(y, x)`` of channel ``c_in``, each ``[D, G, G]``."""
        left, right = np.floor(x).astype(np.int64), np.ceil(x).astype(np.int64)
        top, bottom = np.floor(y).astype(np.int64), np.ceil(y).astype(np.int64)
        dx = np.abs(x - left.astype(F32)).astype(dtype)
        dy = np.abs(y - top.astype(F32)).astype(dtype)
        top_left, top_right = planes[c_in, top, left], planes[c_in, top, right]
        bottom_left, bottom_right = planes[c_in, bottom, left], planes[c_in, bottom, right]
        upper = top_left + (top_right - top_left) * dx
        lower = bottom_left + (bottom_right - bottom_left) * dx
        return upper + (lower - upper) * dy
