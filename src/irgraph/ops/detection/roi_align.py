"""ROIAlign-3 and ROIAlign-9: each region of interest pooled (average or maximum) into ``pooled_h x pooled_w`` bins
of bilinear samples.

Values follow OpenVINO's reference (``reference/roi_align.hpp``) in its order of operations, so openvino
2026.4.1's folding of ROIAlign-3 is matched bit for bit: f32 computes in f32, f16 and bf16 in f32 rounded once
(as its constant folding runs them; the f16 kernel itself, rounding every step, runs only where a plugin calls
it), f64 in f64. Its quirks are kept:

- a bin holds ``sampling_ratio`` x ``sampling_ratio`` samples, or ``ceil(bin size)`` per axis when it is 0;
- a sample more than one pixel outside the map counts as the pixel (0, 0) with weight 0 (so an infinite
  or NaN value there still spreads); samples between -1 and 0 are clamped to 0;
- ``max`` starts from 0: a bin of negative samples pools to 0, and NaN samples are skipped;
- ``avg`` adds ``sample / count`` one sample after another.

ROIAlign-9 adds ``aligned_mode``: ``half_pixel_for_nn`` shifts the box by -0.5 after scaling, ``half_pixel``
by +0.5 before and -0.5 after, and both keep boxes narrower than a pixel (ROIAlign-3 widens them to 1).
openvino 2026.4.1 folds no ROIAlign-9; its CPU plugin and ROIAlign-3's reference on shifted boxes judge it.
Stricter than OpenVINO where it reads outside the data: batch indices outside ``[0, N)`` and empty maps
are refused. The samples of every ROI with the same per-axis sampling ratios are computed at once; the
loop runs over a bin's sample positions, never over elements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.numeric import round_float, truncate_to_int
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, shape_text
from irgraph.ops.registry import register

POOLING_MODES = ("avg", "max")
ALIGNED_MODES = ("asymmetric", "half_pixel_for_nn", "half_pixel")
CHUNK_ELEMENTS = 1 << 22
"""Output elements computed at once (ROIs are taken in chunks of about this many pooled values)."""


def wide_dtype(dtype: np.dtype) -> type[np.floating]:
    """The dtype an element type computes in: f64 for f64, f32 for every other float (rounded once at the end)."""
    return np.float64 if dtype == np.float64 else np.float32


@dataclass(frozen=True)
class SamplingSpaces:
    """Per ROI: the box's start and size in map pixels (in the computing dtype), and how a point of the
    box maps to the image (identity for ROIAlign; ROIAlignRotated rotates it)."""

    start_x: np.ndarray
    start_y: np.ndarray
    size_x: np.ndarray
    size_y: np.ndarray
    to_image: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    """``(x, y, rois) -> (x, y)`` for the ROIs ``rois`` (indices), or None for the identity."""


def check_shapes(data: TensorType, rois: TensorType, batch: TensorType, box_size: int, pooled_h: int,
                 pooled_w: int) -> TensorType:
    """OpenVINO's shared ROI align shape rule: ``[NUM_ROIS, C, pooled_h, pooled_w]`` of the data's float type."""
    mismatch = ("The data type for input and ROIs is expected to be a same floating point type. Got: "
                f"{data.element_type} and: {rois.element_type}")
    element_type = checked(data.element_type.merge(rois.element_type), mismatch)
    check(element_type.is_dynamic or element_type.is_real, mismatch)
    check(batch.element_type.is_dynamic or batch.element_type.is_integral,
          f"The data type for batch indices is expected to be an integer. Got: {batch.element_type}")
    check(data.shape.rank_is_dynamic or data.shape.rank == 4, f"Expected a 4D tensor for the input data. Got: "
          f"{data.shape}")
    check(rois.shape.rank_is_dynamic or rois.shape.rank == 2, f"Expected a 2D tensor for the ROIs input. Got: "
          f"{rois.shape}")
    check(batch.shape.rank_is_dynamic or batch.shape.rank == 1, "Expected a 1D tensor for the batch indices input. "
          f"Got: {batch.shape}")
    count = Dim.dynamic()
    if not rois.shape.rank_is_dynamic:
        check(rois.shape[1].compatible(Dim.static(box_size)), "The second dimension of ROIs input should contain box "
              f"coordinates. op dimension is expected to be equal to {box_size}. Got: {rois.shape[1]}")
        count = rois.shape[0]
    if not batch.shape.rank_is_dynamic:
        merged = count.merge(batch.shape[0])
        merged = checked(merged, "The first dimension of ROIs input must be equal to the first dimension of the "
              f"batch indices input. Got: {count} and: {batch.shape[0]}")
        count = merged
    check(pooled_h >= 0 and pooled_w >= 0, f"pooled_h and pooled_w must be non-negative (OpenVINO fails at "
          f"evaluation). Got: {pooled_h} and {pooled_w}")
    channels = Dim.dynamic() if data.shape.rank_is_dynamic else data.shape[1]
    return TensorType(element_type, Shape((count, channels, Dim.static(pooled_h), Dim.static(pooled_w))))


def check_arrays(data: np.ndarray, rois: np.ndarray, batch: np.ndarray, box_size: int) -> np.ndarray:
    """The batch indices as int64, checked against the data (OpenVINO's reference reads outside it otherwise)."""
    check(data.ndim == 4, f"Expected a 4D tensor for the input data. Got: {shape_text(data.shape)}")
    check(rois.ndim == 2 and rois.shape[1] == box_size, f"Expected ROIs of shape [NUM_ROIS, {box_size}]. Got: "
          f"{shape_text(rois.shape)}")
    check(batch.ndim == 1 and batch.shape[0] == rois.shape[0], "The first dimension of ROIs input must be equal to "
          f"the first dimension of the batch indices input. Got: {rois.shape[0]} and: {shape_text(batch.shape)}")
    check(data.dtype == rois.dtype and data.dtype.kind in "fV", "The data type for input and ROIs is expected to be a "
          f"same floating point type. Got: {data.dtype} and: {rois.dtype}")
    indices = batch.astype(np.int64)
    outside = (indices < 0) | (indices >= data.shape[0]) | (batch.astype(np.float64) != indices)
    if outside.any():
        first = int(np.argmax(outside))
        raise OpError(f"batch index {batch[first]} of ROI {first} is outside the data's batch of {data.shape[0]} "
                      "(OpenVINO's reference reads outside the data)")
    return indices


def pool(data: np.ndarray, batch: np.ndarray, spaces: SamplingSpaces, pooled_h: int, pooled_w: int,
         sampling_ratio: int, mode: str) -> np.ndarray:
    """``[NUM_ROIS, C, pooled_h, pooled_w]``: OpenVINO's ``roi_align`` kernel for the given sampling spaces."""
    count, (_, channels, height, width) = batch.shape[0], data.shape
    wide = wide_dtype(data.dtype)
    out = np.zeros((count, pooled_h, pooled_w, channels), wide)
    if out.size == 0:
        return np.zeros((count, channels, pooled_h, pooled_w), data.dtype)
    check(height > 0 and width > 0, f"ROIAlign has no pixel to sample in data of shape {shape_text(data.shape)}")
    with np.errstate(all="ignore"):
        bin_w = spaces.size_x / wide(pooled_w)
        bin_h = spaces.size_y / wide(pooled_h)
        if sampling_ratio == 0:
            ratio_x, ratio_y = truncate_to_int(np.ceil(bin_w), 32), truncate_to_int(np.ceil(bin_h), 32)
        else:
            ratio_x = ratio_y = np.full(count, sampling_ratio, np.int64)
    bad = (ratio_x < 0) | (ratio_y < 0)
    if bad.any():
        first = int(np.argmax(bad))
        raise OpError(f"ROI {first} has bins of {bin_w[first]} x {bin_h[first]} pixels: no sampling ratio "
                      "(OpenVINO's reference stops: Check 'sampling_ratio_x >= 0 && sampling_ratio_y >= 0' failed)")
    pixels = np.moveaxis(data, 1, -1).reshape(-1, channels).astype(wide)
    pairs = np.stack([ratio_y, ratio_x], axis=1)
    chunk = max(1, CHUNK_ELEMENTS // (pooled_h * pooled_w * channels))
    for ratio_pair in np.unique(pairs, axis=0):
        group = np.flatnonzero((pairs == ratio_pair).all(axis=1))
        for start in range(0, group.size, chunk):
            rois = group[start:start + chunk]
            out[rois] = _pool_group(pixels, batch[rois], spaces, rois, bin_w[rois], bin_h[rois],
                                    (int(ratio_pair[0]), int(ratio_pair[1])), (pooled_h, pooled_w),
                                    (height, width), mode)
    return round_float(np.ascontiguousarray(np.moveaxis(out, -1, 1)), data.dtype)


def _pool_group(pixels: np.ndarray, batch: np.ndarray, spaces: SamplingSpaces, rois: np.ndarray, bin_w: np.ndarray,
                bin_h: np.ndarray, ratios: tuple[int, int], pooled: tuple[int, int], size: tuple[int, int],
                mode: str) -> np.ndarray:
    """Pooled values ``[rois, pooled_h, pooled_w, C]`` of ROIs sharing their sampling ratios."""
    (ratio_y, ratio_x), (pooled_h, pooled_w), (height, width) = ratios, pooled, size
    samples = ratio_y * ratio_x
    wide = pixels.dtype.type
    result = np.zeros((rois.size, pooled_h, pooled_w, pixels.shape[1]), wide)
    if samples == 0:
        return result
    with np.errstate(all="ignore"):
        step_x = (bin_w / wide(ratio_x))[:, None, None]
        step_y = (bin_h / wide(ratio_y))[:, None, None]
        start_x, start_y = spaces.start_x[rois, None, None], spaces.start_y[rois, None, None]
        bins_x = np.arange(pooled_w, dtype=wide).reshape(1, -1, 1)
        bins_y = np.arange(pooled_h, dtype=wide).reshape(1, -1, 1)
        offsets_x = (np.arange(ratio_x, dtype=wide) + wide(0.5)).reshape(1, 1, -1)
        offsets_y = (np.arange(ratio_y, dtype=wide) + wide(0.5)).reshape(1, 1, -1)
        # [rois, bins, samples] per axis: start + bin * bin size + step * (sample + 0.5)
        along_x = (start_x + bins_x * bin_w[:, None, None]) + step_x * offsets_x
        along_y = (start_y + bins_y * bin_h[:, None, None]) + step_y * offsets_y
        rows = batch.reshape(-1, 1, 1) * height
        one, zero = wide(1.0), wide(0)
        for sample_y in range(ratio_y):
            for sample_x in range(ratio_x):
                # [rois, pooled_h, pooled_w] sample points, then in image space
                x = np.broadcast_to(along_x[:, None, :, sample_x], (rois.size, pooled_h, pooled_w))
                y = np.broadcast_to(along_y[:, :, None, sample_y], (rois.size, pooled_h, pooled_w))
                if spaces.to_image is not None:
                    x, y = spaces.to_image(x, y, rois)
                outside = (x < -1.0) | (x > width) | (y < -1.0) | (y > height)
                x, y = np.where(x < zero, zero, x), np.where(y < zero, zero, y)  # std::max keeps NaN and -0.0
                low_x, low_y = _unsigned(x), _unsigned(y)
                last_x, last_y = low_x >= width - 1, low_y >= height - 1
                low_x, low_y = np.where(last_x, width - 1, low_x), np.where(last_y, height - 1, low_y)
                x = np.where(last_x, wide(width - 1), x)
                y = np.where(last_y, wide(height - 1), y)
                up_x, up_y = np.where(last_x, low_x, low_x + 1), np.where(last_y, low_y, low_y + 1)
                frac_x, frac_y = x - low_x.astype(wide), y - low_y.astype(wide)
                rest_x, rest_y = one - frac_x, one - frac_y
                weights = [rest_y * rest_x, rest_y * frac_x, frac_y * rest_x, frac_y * frac_x]
                taps = [(low_y, low_x), (low_y, up_x), (up_y, low_x), (up_y, up_x)]
                terms = []
                for weight, (tap_y, tap_x) in zip(weights, taps, strict=True):
                    weight = np.where(outside, zero, weight)[..., None]
                    index = (rows + np.where(outside, 0, tap_y)) * width + np.where(outside, 0, tap_x)
                    terms.append(weight * np.take(pixels, index, axis=0))
                value = terms[0] + terms[1] + terms[2] + terms[3]  # summed in tap order
                if mode == "max":
                    result = np.where(value > result, value, result)
                else:
                    result = result + value / wide(samples)
    return result


def _unsigned(values: np.ndarray) -> np.ndarray:
    """``static_cast<unsigned int>`` of values in [0, size] or NaN (0, as x86 converts it)."""
    return np.where(np.isnan(values), 0, np.trunc(np.nan_to_num(values))).astype(np.int64)


def _choice(value: str, allowed: Sequence[str], name: str) -> None:
    check(value in allowed, f"Attribute '{name}' must be one of {', '.join(allowed)}. Got: {value!r}")


class PooledBoxes:
    """What ROIAlign and ROIAlignRotated share: ``BOX_SIZE`` values a box, each box pooled into
    ``pooled_h`` x ``pooled_w`` bins of every channel; the shape rule and the checks before evaluation."""

    BOX_SIZE: ClassVar[int]
    pooled_h: int
    pooled_w: int
    sampling_ratio: int

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``[NUM_ROIS, C, pooled_h, pooled_w]`` of the data's type."""
        check(self.sampling_ratio >= 0, f"sampling_ratio must be non-negative (OpenVINO fails at evaluation). Got: "
              f"{self.sampling_ratio}")
        data, rois, batch = inputs
        return [check_shapes(data, rois, batch, self.BOX_SIZE, self.pooled_h, self.pooled_w)]

    def checked_boxes(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, type[np.floating]]:
        """(batch indices, boxes in the computing type, that type) after the checks OpenVINO's reference needs."""
        data, rois, batch = inputs
        check(self.pooled_h >= 0 and self.pooled_w >= 0 and self.sampling_ratio >= 0,
              "pooled_h, pooled_w and sampling_ratio must be non-negative")
        indices = check_arrays(data, rois, batch, self.BOX_SIZE)
        wide = wide_dtype(data.dtype)
        return indices, rois.astype(wide), wide


@dataclass(frozen=True)
class _ROIAlignBase(PooledBoxes, Op):
    """Attributes, shape rule and evaluation of both versions."""

    type_name = "ROIAlign"
    BOX_SIZE = 4
    inputs = Inputs.of(InputSpec("data"), InputSpec("rois"), InputSpec("batch_indices"))

    pooled_h: int = attribute()
    pooled_w: int = attribute()
    sampling_ratio: int = attribute()
    spatial_scale: float = attribute()
    mode: str = attribute()

    def __post_init__(self) -> None:
        _choice(self.mode, POOLING_MODES, "mode")

    @property
    def shift(self) -> tuple[float, float]:
        """(added before scaling, added after) to box coordinates."""
        return (0.0, 0.0)

    @property
    def widens(self) -> bool:
        """True when boxes narrower or lower than a pixel are widened to one."""
        return True

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every ROI's pooled bins."""
        data = inputs[0]
        indices, boxes, wide = self.checked_boxes(inputs)
        before, after = wide(self.shift[0]), wide(self.shift[1])
        scale = wide(np.float32(self.spatial_scale))
        with np.errstate(all="ignore"):
            x1, y1, x2, y2 = ((boxes[:, i] + before) * scale + after for i in range(4))
            width, height = x2 - x1, y2 - y1
            if self.widens:  # std::max(size, 1): NaN stays
                width, height = np.where(width < 1, wide(1), width), np.where(height < 1, wide(1), height)
        spaces = SamplingSpaces(x1, y1, width, height)
        return [pool(data, indices, spaces, self.pooled_h, self.pooled_w, self.sampling_ratio, self.mode)]


@register
@dataclass(frozen=True)
class ROIAlign3(_ROIAlignBase):
    """Average or maximum of bilinear samples in each bin of each ROI. Spec: ROIAlign-3."""

    introduced = 3


@register
@dataclass(frozen=True)
class ROIAlign9(_ROIAlignBase):
    """ROIAlign-3 plus ``aligned_mode`` (half-pixel box shifts, boxes kept below a pixel). Spec: ROIAlign-9."""

    introduced = 9

    aligned_mode: str = attribute("asymmetric")

    def __post_init__(self) -> None:
        super().__post_init__()
        _choice(self.aligned_mode, ALIGNED_MODES, "aligned_mode")

    @property
    def shift(self) -> tuple[float, float]:
        """half_pixel: +0.5 then -0.5; half_pixel_for_nn: -0.5 after scaling; asymmetric: none."""
        return {"asymmetric": (0.0, 0.0), "half_pixel_for_nn": (0.0, -0.5), "half_pixel": (0.5, -0.5)}[
            self.aligned_mode]

    @property
    def widens(self) -> bool:
        """Only asymmetric boxes are widened to a pixel."""
        return self.aligned_mode == "asymmetric"
