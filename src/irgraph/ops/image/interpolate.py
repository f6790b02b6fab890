"""Interpolate-1, Interpolate-4 and Interpolate-11: resize tensors along some axes.

Values follow OpenVINO's reference (``reference/interpolate.hpp``), whose arithmetic is f32
throughout: source coordinates, weights and sums are computed in f32 in the reference's order, so
every mode is bit for bit. Everything is
vectorised per axis: a table of source coordinates (and weights) per output position of each axis,
then one gather over the whole output per kernel tap (2**k taps for linear_onnx, 4**k for cubic,
(2r+1)**k for linear over k axes), never a loop over output elements.

- Padding (``pads_begin``/``pads_end``) adds zeros before the resize; scales computed from sizes
  are ``f32(size) / f32(padded length)``.
- Output lengths from scales are ``int64(f32(length) * (scale + 1e-6f))`` (never below 0); a
  scale of exactly 1 keeps the dim as it is.
- f16/bf16 compute in f32 and round once; i8/u8 truncate the f32 result (linear rounds first), as
  ``static_cast`` does. OpenVINO 2026.4.1 folds f32, f16, bf16, i8 and u8 only.
- bilinear_pillow and bicubic_pillow (Interpolate-11) are Pillow's two separable passes in f64
  (width, then height), each stored in the element type, as OpenVINO's copy of Pillow does (f16
  and bf16 store f32: constant folding runs them as f32 and rounds the result once).
- area (Interpolate-1) is kept and shape inferred, but does not run (OpenVINO's reference refuses it).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError

# The padded input and Pillow's intermediate are real arrays beside the output the interpreter checks: they are
# refused above its default element limit.
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.numeric import convert, round_float
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values
from irgraph.ops.registry import register

F32 = np.float32
MODES = ("nearest", "linear", "linear_onnx", "cubic")
PILLOW_MODES = ("bilinear_pillow", "bicubic_pillow")
TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
SHAPE_MODES = ("sizes", "scales")
TAP_LIMIT = 65536
"""Passes over the output irgraph makes for one linear resize (antialias with a tiny scale needs up to
(2 ceil(2 / scale) + 1) ** k taps; those outside the input are skipped): refused above this."""
_SIZES_TYPES = "i32, i64, u32 or u64"
_EPSILON = F32(1e-6)


# ------------------------------------------------------------------------------------ shapes
def scaled_dim(dim: Dim, scale: float) -> Dim:
    """``int64(f32(bound) * (scale + 1e-6f))`` for each bound, never below 0; a scale of 1 keeps the dim."""
    if scale == 1.0:
        return dim
    multiplier = F32(scale) + _EPSILON

    def bound(value: int) -> int:
        with np.errstate(all="ignore"):
            product = F32(value) * multiplier
        check(bool(np.isfinite(product)), f"Interpolate scale {scale} makes dim {value} infinite")
        return max(0, int(product))

    return Dim(bound(dim.min), None if dim.max is None else bound(dim.max))


def padded_shape(shape: Shape, pads_begin: Sequence[int], pads_end: Sequence[int]) -> Shape:
    """Each dim plus its pads (pads resized to the rank with zeros, as OpenVINO does)."""
    dims = []
    for i, dim in enumerate(shape):
        extra = (pads_begin[i] if i < len(pads_begin) else 0) + (pads_end[i] if i < len(pads_end) else 0)
        dims.append(dim + extra)
    return Shape(tuple(dims))


def check_axes(axes: Sequence[int], rank: int) -> list[int]:
    """OpenVINO's rule: every axis in [0, rank) (negative axes are refused, as the size_t compare does)."""
    check(all(0 <= a < rank for a in axes), f"All axes values should less than input rank: {rank}. Got: {list(axes)}")
    check(len(set(axes)) == len(axes), f"Interpolate axes must be unique. Got: {list(axes)}")
    return list(axes)


def check_rank_1(tensor: TensorType, what: str, port: int) -> None:
    """Sizes, scales and axes inputs are 1-D."""
    check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1, f"Input [{port}] is not rank 1. Got {what}: "
          f"{tensor.shape}")


def check_pads(pads_begin: Sequence[int], pads_end: Sequence[int]) -> None:
    """Pads are unsigned in OpenVINO; a negative one (read from the IR) would wrap to a huge length."""
    check(all(p >= 0 for p in (*pads_begin, *pads_end)),
          f"Interpolate pads must be non-negative. Got: pads_begin {list(pads_begin)}, pads_end {list(pads_end)}")


# ------------------------------------------------------------------------------------ coordinates
def source_coordinates(transform: str, out_len: int, in_len: int, scale: np.float32,
                       positions: int | None = None) -> np.ndarray:
    """The f32 source coordinate of each output position (OpenVINO's GetOriginalCoordinate); ``positions``
    output positions (``out_len`` unless given)."""
    count = out_len if positions is None else positions
    x = np.arange(count, dtype=F32)
    out_f, in_f = F32(out_len), F32(in_len)
    if scale == F32(1.0) or out_f == in_f:
        return x
    with np.errstate(all="ignore"):
        if transform == "pytorch_half_pixel":
            return (x + F32(0.5)) / scale - F32(0.5) if out_f > 1 else np.zeros(count, F32)
        if transform == "asymmetric":
            return x / scale
        if transform == "tf_half_pixel_for_nn":
            return (x + F32(0.5)) / scale
        if transform == "align_corners":
            return np.zeros(count, F32) if out_f == 1 else x * (in_f - F32(1)) / (out_f - F32(1))
        return (x + F32(0.5)) / scale - F32(0.5)


def _to_int64(values: np.ndarray) -> np.ndarray:
    """``static_cast<int64_t>(float)``: truncation; NaN and out of range give INT64_MIN (x86 cvttss2si)."""
    with np.errstate(invalid="ignore"):
        inside = np.isfinite(values) & (np.abs(values) < F32(2.0**63))
        return np.where(inside, np.trunc(np.where(inside, values, 0)), 0).astype(np.int64) + np.where(
            inside, 0, np.int64(-(2**63)))


def _round_half_away(values: np.ndarray) -> np.ndarray:
    """``std::round`` on f32 (exact: the fraction ``x - trunc(x)`` has no rounding error)."""
    whole = np.trunc(values)
    return whole + np.where(np.abs(values - whole) >= F32(0.5), np.sign(values), F32(0))


def nearest_indices(rule: str, coordinates: np.ndarray, downsample: bool, in_len: int) -> np.ndarray:
    """OpenVINO's GetNearestPixel, then clamped into [0, in_len - 1]."""
    with np.errstate(all="ignore"):
        if rule == "round_prefer_ceil":
            chosen = _to_int64(_round_half_away(coordinates))
        elif rule == "floor":
            chosen = _to_int64(np.floor(coordinates))
        elif rule == "ceil":
            chosen = _to_int64(np.ceil(coordinates))
        elif rule == "simple":
            chosen = _to_int64(np.ceil(coordinates)) if downsample else _to_int64(coordinates)
        else:  # round_prefer_floor: x.5 goes down, else std::round
            half = coordinates == (_to_int64(coordinates).astype(F32) + F32(0.5))
            chosen = np.where(half, _to_int64(np.floor(coordinates)), _to_int64(_round_half_away(coordinates)))
    return np.clip(chosen, 0, in_len - 1)


def cubic_coefficients(s: np.ndarray, a: np.float32) -> list[np.ndarray]:
    """The four Keys kernel weights for fraction ``s``, in f32 exactly as the reference writes them."""
    t = np.abs(s)
    one, two = t + F32(1), F32(1) - t
    three = F32(2) - t
    return [
        ((a * one - F32(5) * a) * one + F32(8) * a) * one - F32(4) * a,
        ((a + F32(2)) * t - (a + F32(3))) * t * t + F32(1),
        ((a + F32(2)) * two - (a + F32(3))) * two * two + F32(1),
        ((a * three - F32(5) * a) * three + F32(8) * a) * three - F32(4) * a,
    ]


# ------------------------------------------------------------------------------------ resampling
@dataclass(frozen=True)
class Resize:
    """One evaluation: the padded data, the axes, their f32 scales and the output shape."""

    data: np.ndarray
    axes: list[int]
    scales: list[np.float32]
    out_shape: tuple[int, ...]
    transform: str

    def coordinates(self, index: int, data_axis: int | None = None) -> np.ndarray:
        """Source coordinates along ``axes[index]`` (over ``data_axis``'s output length when given)."""
        axis = self.axes[index]
        positions = self.out_shape[axis if data_axis is None else data_axis]
        return source_coordinates(self.transform, self.out_shape[axis], self.data.shape[axis], self.scales[index],
                                  positions)

    def along(self, axis: int, values: np.ndarray) -> np.ndarray:
        """A per-position table of ``axis`` shaped to broadcast over the output."""
        shape = [1] * len(self.out_shape)
        shape[axis] = values.size
        return values.reshape(shape)

    def gather(self, tables: dict[int, np.ndarray]) -> np.ndarray:
        """The data at the given per-axis indices (identity on the other axes), output-shaped."""
        index = [tables.get(axis, np.arange(self.out_shape[axis])) for axis in range(self.data.ndim)]
        return self.data[np.ix_(*index)] if index else self.data


class TapGather:
    """The f32 data at one kernel tap per axis: ``np.take`` along one axis after another, keeping the
    partial gathers of the earlier axes (taps come in row-major order, so each is reused)."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data.astype(F32, copy=False)
        self.cache: dict[tuple, np.ndarray] = {}

    def __call__(self, taps: Sequence[tuple[int, int, np.ndarray]]) -> np.ndarray:
        """``taps`` is (axis, tap number, source index per output position) per resized axis, in order."""
        result = self.data
        for depth, (axis, _, table) in enumerate(taps):
            key = tuple((a, n) for a, n, _ in taps[:depth + 1])
            cached = self.cache.get(key)
            if cached is None:
                cached = np.take(result, table, axis=axis)
                if depth < len(taps) - 1:  # the last level is used once
                    for stale in [k for k in self.cache if len(k) == depth + 1]:
                        del self.cache[stale]
                    self.cache[key] = cached
            result = cached
        return result


def nearest(resize: Resize, rule: str) -> np.ndarray:
    """Every axis gathers its nearest source index (non-axes have scale 1: identity)."""
    tables = {}
    for index, axis in enumerate(resize.axes):
        scale = resize.scales[index]
        coordinates = source_coordinates(resize.transform, resize.out_shape[axis], resize.data.shape[axis], scale)
        tables[axis] = nearest_indices(rule, coordinates, bool(scale < F32(1.0)), resize.data.shape[axis])
    return resize.gather(tables)


def linear_onnx(resize: Resize) -> np.ndarray:
    """ONNX linear: 2**k corners over the spatial axes, weights and sum in f32 in the reference's order."""
    data, axes, rank = resize.data, resize.axes, resize.data.ndim
    spatial_all = list(range(2, rank)) if rank >= 4 else list(range(rank))
    if rank < 2 or (axes != list(range(rank)) and axes != spatial_all) or (rank < 4 and axes != list(range(rank))):
        raise OpError(f"Axes are not correct! linear_onnx resizes all axes or axes 2.. of a rank >= 4 input. "
                      f"Got axes {axes} for rank {rank}")
    in5 = (1,) * (5 - rank) + data.shape
    out5 = (1,) * (5 - rank) + resize.out_shape
    spatial_rank = 2 if in5[1] == out5[1] and in5[2] == out5[2] else 3
    first = rank - spatial_rank
    for axis in range(max(0, first)):
        check(data.shape[axis] == resize.out_shape[axis],
              f"linear_onnx resizes only the last {spatial_rank} axes here; axis {axis} changes from "
              f"{data.shape[axis]} to {resize.out_shape[axis]}")
    offset = rank - spatial_rank if len(axes) == rank else 0
    lows, highs, near, far = {}, {}, {}, {}
    for i in range(spatial_rank):
        axis = first + i
        in_len = data.shape[axis]  # > 0, or the output is empty: the callers refuse the rest
        coordinates = resize.coordinates(i + offset, axis)
        with np.errstate(invalid="ignore"):
            clamped = np.where(F32(0) < np.minimum(coordinates, F32(in_len - 1)),
                               np.minimum(coordinates, F32(in_len - 1)), F32(0))
            clamped = np.where(np.isnan(coordinates), F32(0), clamped).astype(F32)
        low = np.minimum(_to_int64(clamped), in_len - 1)
        high = np.minimum(low + 1, in_len - 1)
        d_low = np.abs(clamped - low.astype(F32))
        d_high = np.abs(clamped - high.astype(F32))
        same = low == high
        d_low = np.where(same, F32(0.5), d_low).astype(F32)
        d_high = np.where(same, F32(0.5), d_high).astype(F32)
        lows[axis], highs[axis] = low, high
        near[axis], far[axis] = resize.along(axis, d_low), resize.along(axis, d_high)
    spatial = list(lows)
    total = np.zeros(resize.out_shape, F32)
    gather = TapGather(data)
    with np.errstate(all="ignore"):
        for corner in range(1 << spatial_rank):
            coefficient = F32(1.0)
            taps = []
            for j, axis in enumerate(spatial):
                bit = 1 if corner & (1 << (spatial_rank - 1 - j)) else 0
                coefficient = coefficient * (near[axis] if bit else far[axis])
                taps.append((axis, bit, highs[axis] if bit else lows[axis]))
            total += coefficient * gather(taps)
    return total


def cubic(resize: Resize, cube_coeff: float) -> np.ndarray:
    """4**k taps over the axes (in the axes' order, the last fastest), weights and sum in f32."""
    a = F32(cube_coeff)
    taps, weights = {}, {}
    for index, axis in enumerate(resize.axes):
        in_len = resize.data.shape[axis]  # > 0, or the output is empty: the callers refuse the rest
        coordinates = resize.coordinates(index)
        with np.errstate(all="ignore"):
            base = _to_int64(np.floor(coordinates))
            fraction = (coordinates - base.astype(F32)).astype(F32)
            coefficients = cubic_coefficients(fraction, a)
        taps[axis] = [np.clip(base + k - 1, 0, max(in_len - 1, 0)) for k in range(4)]
        weights[axis] = [resize.along(axis, c) for c in coefficients]
    total = np.zeros(resize.out_shape, F32)
    gather = TapGather(resize.data)
    with np.errstate(all="ignore"):
        for combination in np.ndindex(*([4] * len(resize.axes))):
            product = F32(1.0)
            for axis, k in zip(resize.axes, combination, strict=True):
                product = product * weights[axis][k]
            total += product * gather([(axis, k, taps[axis][k]) for axis, k in zip(resize.axes, combination,
                                                                                   strict=True)])
    return total


def linear(resize: Resize, antialias: bool) -> np.ndarray:
    """OpenVINO's 'linear': triangle weights over 2r+1 taps per axis (wider with antialias when
    downsampling), normalised by their sum; terms outside the input are skipped."""
    downsample = any(s < F32(1.0) for s in resize.scales)
    use_antialias = downsample and antialias
    a = [s if use_antialias else F32(1.0) for s in resize.scales]
    product_a = F32(1.0)
    for value in a:
        product_a = product_a * value
    radius = [2 if s > 1.0 else int(math.ceil(F32(2.0) / value)) for s, value in zip(resize.scales, a, strict=True)]
    centres, rounded, useful = {}, {}, []
    for index, axis in enumerate(resize.axes):
        coordinates = resize.coordinates(index)
        centres[axis] = coordinates
        rounded[axis] = _to_int64(_round_half_away(coordinates))
        # Taps whose source lies outside the input for every output position add nothing: skipped.
        low = int(rounded[axis].min(initial=0)) - radius[index]
        high = int(rounded[axis].max(initial=0)) - radius[index]
        first, last = max(0, -high), min(2 * radius[index], resize.data.shape[axis] - 1 - low)
        useful.append(range(first, last + 1))
    count = math.prod(len(taps) for taps in useful)
    check(count <= TAP_LIMIT, f"Interpolate linear needs {count} taps per output element (antialias with scales "
          f"{[float(s) for s in resize.scales]}); irgraph runs at most {TAP_LIMIT}")
    summa = np.zeros(resize.out_shape, F32)
    # The weights vary along the resized axes only: their sum is kept at that (broadcastable) shape.
    weight_sum = np.zeros([n if axis in resize.axes else 1 for axis, n in enumerate(resize.out_shape)], F32)
    gather = TapGather(resize.data)
    with np.errstate(all="ignore"):
        for combination in itertools.product(*useful):
            weight = product_a
            tables, inside = [], None
            for index, (axis, k) in enumerate(zip(resize.axes, combination, strict=True)):
                source = k + rounded[axis] - radius[index]
                valid = (source >= 0) & (source < resize.data.shape[axis])
                dz = centres[axis] - source.astype(F32)
                triangle = np.maximum(F32(0), F32(1) - np.abs(a[index] * dz))
                triangle = np.where(np.isnan(triangle), F32(0), triangle).astype(F32)  # std::max(0, NaN) is 0
                weight = weight * resize.along(axis, triangle)
                tables.append((axis, k, np.clip(source, 0, max(resize.data.shape[axis] - 1, 0))))
                mask = resize.along(axis, valid)
                inside = mask if inside is None else inside & mask
            values = gather(tables)
            if inside is None or inside.all():
                weight_sum += weight
                summa += weight * values
            else:  # terms outside the input are skipped (adding +0.0 changes nothing)
                weight_sum += np.where(inside, weight, F32(0))
                summa += np.where(inside, weight * values, F32(0))
        result = np.where(weight_sum == F32(0), F32(0), summa / weight_sum)
    return result.astype(F32)


def _bilinear_kernel(x: np.ndarray, a: float) -> np.ndarray:
    magnitude = np.abs(x)
    return np.where(magnitude < 1.0, 1.0 - magnitude, 0.0)


def _bicubic_kernel(x: np.ndarray, a: float) -> np.ndarray:
    t = np.abs(x)
    near = ((a + 2.0) * t - (a + 3.0)) * t * t + 1
    far = (((t - 5) * t + 8) * t - 4) * a
    return np.where(t < 1.0, near, np.where(t < 2.0, far, 0.0))


PILLOW_FILTERS = {"bilinear_pillow": (_bilinear_kernel, 1.0), "bicubic_pillow": (_bicubic_kernel, 2.0)}
"""Pillow's filters (libImaging/Resample.c as OpenVINO copies it): the kernel and its support."""


def pillow_coefficients(in_size: int, out_size: int, mode: str, a: float
                        ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Pillow's ``precompute_coeffs`` for every output position at once, in f64: the first source index,
    the tap count and the normalised weight of each tap (summed left to right as Pillow does)."""
    kernel, base_support = PILLOW_FILTERS[mode]
    scale = float(F32(in_size)) / out_size
    filter_scale = max(scale, 1.0)
    support = base_support * filter_scale
    taps = int(math.ceil(support)) * 2 + 1
    centre = 0.0 + (np.arange(out_size, dtype=np.float64) + 0.5) * scale
    first = np.maximum(np.trunc(centre - support + 0.5).astype(np.int64), 0)
    count = np.minimum(np.trunc(centre + support + 0.5).astype(np.int64), in_size) - first
    weights, total = [], np.zeros(out_size)
    for x in range(taps):
        weight = np.where(x < count, kernel(((x + first).astype(np.float64) - centre + 0.5) * (1.0 / filter_scale), a),
                          0.0)
        total = total + weight
        weights.append(weight)
    return first, count, [np.where(total != 0.0, w / np.where(total != 0.0, total, 1.0), w) for w in weights]


def _pillow_cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``T(ss)`` for floats (through f32), ``clip(round_up(ss))`` for integers."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore"):
            rounded = np.trunc(np.where(values >= 0.0, values + 0.5, values - 0.5))
            return np.clip(np.nan_to_num(rounded, nan=0.0), info.min, info.max).astype(dtype)
    return round_float(values, dtype)


def pillow_pass(data: np.ndarray, axis: int, out_len: int, mode: str, a: float) -> np.ndarray:
    """One of Pillow's two passes along ``axis``: f64 sums of the taps in order, stored in the data's type."""
    in_len = data.shape[axis]
    first, count, weights = pillow_coefficients(in_len, out_len, mode, a)
    shape = [1] * data.ndim
    shape[axis] = out_len
    out_shape = list(data.shape)
    out_shape[axis] = out_len
    total = np.zeros(out_shape)
    with np.errstate(all="ignore"):
        for x, weight in enumerate(weights):
            valid = x < count
            if not valid.any():
                continue
            values = np.take(data, np.clip(first + x, 0, in_len - 1), axis=axis).astype(np.float64)
            total += np.where(valid.reshape(shape), values * weight.reshape(shape), 0.0)
    return _pillow_cast(total, data.dtype)


def pillow(resize: Resize, mode: str, a: float) -> np.ndarray:
    """Pillow's two-pass resize: along ``axes[1]`` (width) first, then ``axes[0]`` (height); a pass
    runs only where its length changes."""
    check(len(resize.axes) == 2, "For Pillow based modes exactly two (HW) axes need to be provided. "
          f"Got axes {resize.axes}")
    height, width = resize.axes
    if not math.prod(resize.out_shape):
        return np.zeros(resize.out_shape, resize.data.dtype)
    dtype = resize.data.dtype
    widened = dtype.kind not in "iuf" or dtype == np.float16  # constant folding runs f16/bf16 as f32
    result = resize.data.astype(F32) if widened else resize.data
    if resize.out_shape[width] != resize.data.shape[width]:
        between = math.prod(resize.data.shape) // resize.data.shape[width] * resize.out_shape[width]
        check(between <= DEFAULT_ELEMENT_LIMIT, f"Interpolate {mode}'s intermediate (width resized, height not yet) "
              f"would have {between} elements, above the limit of {DEFAULT_ELEMENT_LIMIT}")
        result = pillow_pass(result, width, resize.out_shape[width], mode, a)
    if resize.out_shape[height] != resize.data.shape[height]:
        result = pillow_pass(result, height, resize.out_shape[height], mode, a)
    if widened:
        return round_float(result, dtype)
    return result if result is not resize.data else resize.data.copy()


# ------------------------------------------------------------------------------------ the base
@dataclass(frozen=True)
class InterpolateBase(Op):
    """Shared evaluation of Interpolate-4 and -11 (Interpolate-1 maps its attributes onto them)."""

    tolerance: ClassVar[Tolerance] = Tolerance()
    """Exact: every mode that runs computes in f32 in the reference's order (500-example runs agree bit
    for bit with openvino 2026.4.1's folding)."""

    def run(self, data: np.ndarray, axes: list[int], scales: list[np.float32], out_shape: tuple[int, ...],
            pads_begin: Sequence[int], pads_end: Sequence[int], mode: str, transform: str, rule: str,
            antialias: bool, cube_coeff: float) -> np.ndarray:
        """Pad, resize, and convert to the data's element type as the reference's static_cast does."""
        padded = pad(data, pads_begin, pads_end)
        resize = Resize(padded, axes, scales, out_shape, transform)
        if mode == "nearest":
            return nearest(resize, rule)
        if mode in PILLOW_MODES:
            return pillow(resize, mode, cube_coeff)  # a double here; cubic casts it to f32
        if mode == "linear_onnx":
            values = linear_onnx(resize)
        elif mode == "cubic":
            values = cubic(resize, cube_coeff)
        else:
            values = linear(resize, antialias)
            if data.dtype.kind in "iu":
                values = _round_half_away(values)
        return cast(values, data.dtype)


def pad(data: np.ndarray, pads_begin: Sequence[int], pads_end: Sequence[int]) -> np.ndarray:
    """Zeros before and after each axis (pads resized to the rank)."""
    widths = [((pads_begin[i] if i < len(pads_begin) else 0), (pads_end[i] if i < len(pads_end) else 0))
              for i in range(data.ndim)]
    if not any(b or e for b, e in widths):
        return data
    count = math.prod(n + b + e for n, (b, e) in zip(data.shape, widths, strict=True))
    check(count <= DEFAULT_ELEMENT_LIMIT, f"The padded Interpolate input would have {count} elements, above the "
          f"limit of {DEFAULT_ELEMENT_LIMIT}")
    return np.pad(data, widths)


def cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """f32 results to the data's element type: floats round, integers truncate (``static_cast``)."""
    if dtype.kind in "iu":
        return convert(values.astype(F32), ElementType.F32, ElementType.from_numpy(dtype))
    return round_float(values, dtype)


def float_values(array: np.ndarray, what: str) -> list[np.float32]:
    """A scales tensor as f32 values."""
    return [F32(v) for v in np.asarray(array).reshape(-1).astype(F32).tolist()]


def _choice(value: str, allowed: Sequence[str], name: str) -> None:
    check(value in allowed, f"Attribute '{name}' must be one of {', '.join(allowed)}. Got: {value!r}")


@dataclass(frozen=True)
class InterpolateV4Like(InterpolateBase):
    """Attributes and shape rules of Interpolate-4 and -11 (inputs differ)."""

    mode: str = attribute()
    shape_calculation_mode: str = attribute("sizes")
    coordinate_transformation_mode: str = attribute("half_pixel")
    nearest_mode: str = attribute("round_prefer_floor")
    antialias: bool = attribute(False)
    pads_begin: tuple[int, ...] = attribute((0,))
    pads_end: tuple[int, ...] = attribute((0,))
    cube_coeff: float = attribute(-0.75)

    modes: ClassVar[tuple[str, ...]] = MODES

    def __post_init__(self) -> None:
        _choice(self.mode, self.modes, "mode")
        _choice(self.shape_calculation_mode, SHAPE_MODES, "shape_calculation_mode")
        _choice(self.coordinate_transformation_mode, TRANSFORMS, "coordinate_transformation_mode")
        _choice(self.nearest_mode, NEAREST_MODES, "nearest_mode")
        check_pads(self.pads_begin, self.pads_end)

    @property
    def uses_scales(self) -> bool:
        """True when output lengths come from scales."""
        return self.shape_calculation_mode == "scales"

    def shape_rule(self, data: TensorType, axes_value: np.ndarray | None, has_axes: bool,
                   values_value: np.ndarray | None) -> Shape:
        """Padded data shape with the axes' dims replaced by sizes or scaled by scales."""
        if data.shape.rank_is_dynamic:
            return DYNAMIC_RANK
        rank = data.shape.rank
        if has_axes:
            if axes_value is None:
                return Shape.dynamic(rank)
            axes = check_axes(integer_values(axes_value, "axes"), rank)
        else:
            axes = list(range(rank))
        shape = padded_shape(data.shape, self.pads_begin, self.pads_end)
        if values_value is None:
            for axis in axes:
                shape = shape.replace(axis, Dim.dynamic())
            return shape
        what = "scales" if self.uses_scales else "sizes"
        count = np.size(values_value)
        check(count >= len(axes), f"The number of elements in the '{what}' input does not match the number of axes "
              f"{len(axes)}. Got: {count}")
        if self.uses_scales:
            for axis, scale in zip(axes, float_values(values_value, "scales"), strict=False):
                shape = shape.replace(axis, scaled_dim(shape[axis], float(scale)))
        else:
            sizes = integer_values(values_value, "sizes")
            check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
            for axis, size in zip(axes, sizes, strict=False):
                shape = shape.replace(axis, Dim.static(size))
        return shape

    def plan(self, data: np.ndarray, values: np.ndarray, axes_value: np.ndarray | None
             ) -> tuple[list[int], list[np.float32], tuple[int, ...]]:
        """The axes, their f32 scales and the output shape for concrete inputs."""
        axes = check_axes(integer_values(axes_value, "axes"), data.ndim) if axes_value is not None \
            else list(range(data.ndim))
        padded = [int(s) for s in padded_shape(Shape.static(data.shape), self.pads_begin, self.pads_end).to_tuple()]
        what = "scales" if self.uses_scales else "sizes"
        check(np.size(values) >= len(axes), f"The number of elements in the '{what}' input does not match the "
              f"number of axes {len(axes)}. Got: {np.size(values)}")
        out = list(padded)
        if self.uses_scales:
            scales = float_values(values, "scales")[:len(axes)]
            for axis, scale in zip(axes, scales, strict=True):
                out[axis] = scaled_dim(Dim.static(padded[axis]), float(scale)).min
        else:
            sizes = integer_values(values, "sizes")[:len(axes)]
            check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
            with np.errstate(all="ignore"):
                scales = [F32(size) / F32(padded[axis]) for axis, size in zip(axes, sizes, strict=True)]
            for axis, size in zip(axes, sizes, strict=True):
                out[axis] = size
        return axes, scales, tuple(out)

    def resize(self, data: np.ndarray, values: np.ndarray, axes_value: np.ndarray | None) -> np.ndarray:
        """Evaluate on concrete inputs."""
        axes, scales, out_shape = self.plan(data, values, axes_value)
        if self.mode != "nearest":  # nearest clamps; the kernels would read an empty axis
            for axis in axes:
                padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
                check(padded_len > 0 or out_shape[axis] == 0,
                      f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        elif math.prod(out_shape):
            for axis in axes:
                padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
                check(padded_len > 0, f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        return self.run(data, axes, scales, out_shape, self.pads_begin, self.pads_end, self.mode,
                        self.coordinate_transformation_mode, self.nearest_mode, self.antialias, self.cube_coeff)


def _pad_at(pads: Sequence[int], axis: int) -> int:
    return pads[axis] if axis < len(pads) else 0


def _check_type(tensor: TensorType, allowed: Sequence[ElementType], message: str) -> None:
    check(tensor.element_type.is_dynamic or tensor.element_type in allowed, f"{message}. Got: {tensor.element_type}")


SIZES_TYPES = (ElementType.I32, ElementType.I64, ElementType.U32, ElementType.U64)
SCALES_TYPES = (ElementType.F32, ElementType.F16, ElementType.BF16)


@register
@dataclass(frozen=True)
class Interpolate4(InterpolateV4Like):
    """Inputs data, sizes, scales and optional axes; ``shape_calculation_mode`` picks sizes or scales.
    Spec: Interpolate-4."""

    type_name = "Interpolate"
    introduced = 4
    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("sizes"),
                           InputSpec("scales"), InputSpec("axes")), minimum=3)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's v4 shape_infer."""
        data, sizes, scales, *rest = inputs
        _check_type(sizes, SIZES_TYPES, f"Sizes element type must be {_SIZES_TYPES}")
        _check_type(scales, SCALES_TYPES, "Scales element type must be f32, f16 or bf16")
        check_rank_1(scales if self.uses_scales else sizes, "scales" if self.uses_scales else "sizes",
                     2 if self.uses_scales else 1)
        if rest:
            _check_type(rest[0], SIZES_TYPES, f"Axes element type must be {_SIZES_TYPES}")
            check_rank_1(rest[0], "axes", 3)
        padded = list(values) + [None] * (4 - len(values))
        used = padded[2] if self.uses_scales else padded[1]
        return [TensorType(data.element_type, self.shape_rule(data, padded[3], bool(rest), used))]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """The resized data."""
        data, sizes, scales, *rest = inputs
        return [self.resize(data, scales if self.uses_scales else sizes, rest[0] if rest else None)]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape, computed without allocating."""
        data, sizes, scales, *rest = inputs
        return [self.plan(data, scales if self.uses_scales else sizes, rest[0] if rest else None)[2]]


@register
@dataclass(frozen=True)
class Interpolate11(InterpolateV4Like):
    """Inputs data, scales_or_sizes and optional axes; adds the Pillow modes. Spec: Interpolate-11."""

    type_name = "Interpolate"
    introduced = 11
    inputs = Inputs(fixed=(InputSpec("data"), InputSpec("scales_or_sizes"),
                           InputSpec("axes")), minimum=2)
    modes = MODES + PILLOW_MODES

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """OpenVINO's v11 shape_infer."""
        data, scales_or_sizes, *rest = inputs
        if self.uses_scales:
            _check_type(scales_or_sizes, SCALES_TYPES, "Scales element type must be f32, f16 or bf16")
        else:
            _check_type(scales_or_sizes, SIZES_TYPES, f"Sizes element type must be {_SIZES_TYPES}")
        check_rank_1(scales_or_sizes, "scales_or_sizes", 1)
        if rest:
            _check_type(rest[0], SIZES_TYPES, f"Axes element type must be {_SIZES_TYPES}")
            check_rank_1(rest[0], "axes", 2)
        padded = list(values) + [None] * (3 - len(values))
        return [TensorType(data.element_type, self.shape_rule(data, padded[2], bool(rest), padded[1]))]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """The resized data."""
        data, values, *rest = inputs
        return [self.resize(data, values, rest[0] if rest else None)]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape, computed without allocating."""
        data, values, *rest = inputs
        return [self.plan(data, values, rest[0] if rest else None)[2]]


@register
@dataclass(frozen=True)
class Interpolate1(InterpolateBase):
    """Inputs data and the target lengths of ``axes`` (an attribute). Spec: Interpolate-1.

    Runs as OpenVINO's reference runs it (``transform_v0_to_v4``): nearest_mode simple; linear is
    linear_onnx below rank 5; coordinates asymmetric, align_corners when set, half_pixel for linear
    modes without pads unless a rank-4 input resizes axes {2, 3}.
    """

    type_name = "Interpolate"
    attribute_order = ("align_corners", "antialias", "axes", "mode", "pads_begin", "pads_end")  # as OpenVINO writes it
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("output_shape"))

    axes: tuple[int, ...] = attribute()
    mode: str = attribute()
    align_corners: bool = attribute(False)
    antialias: bool = attribute(False)
    pads_begin: tuple[int, ...] = attribute((0,))
    pads_end: tuple[int, ...] = attribute((0,))

    def __post_init__(self) -> None:
        _choice(self.mode, ("nearest", "linear", "cubic", "area"), "mode")
        check_pads(self.pads_begin, self.pads_end)

    @property
    def cannot_run_reason(self) -> str | None:
        """Area mode is not implemented (OpenVINO's reference refuses it too)."""
        return "Interpolate-1 mode area is not implemented in irgraph" if self.mode == "area" else None

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data shape with the axes' dims set to the target lengths."""
        data, target = inputs
        check(target.element_type.is_integral or target.element_type.is_dynamic,
              "output shape must be an integral number.")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        axes = check_axes(sorted(set(self.axes)), data.shape.rank)
        shape = data.shape
        value = values[1] if len(values) > 1 else None
        if value is None:
            for axis in axes:
                shape = shape.replace(axis, Dim.dynamic())
        else:
            sizes = integer_values(value, "output_shape")
            check(len(sizes) >= len(axes), f"output_shape needs one length per axis {axes}. Got: {sizes}")
            check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
            for axis, size in zip(axes, sizes, strict=False):
                shape = shape.replace(axis, Dim.static(size))
        return [TensorType(data.element_type, shape)]

    def _plan(self, data: np.ndarray, target: np.ndarray) -> tuple[list[int], list[np.float32], tuple[int, ...]]:
        axes = check_axes(sorted(set(self.axes)), data.ndim)
        sizes = integer_values(target, "output_shape")
        check(len(sizes) >= len(axes), f"output_shape needs one length per axis {axes}. Got: {sizes}")
        check(all(s >= 0 for s in sizes), f"Interpolate sizes must be non-negative. Got: {sizes}")
        out = list(data.shape)
        for axis, size in zip(axes, sizes, strict=False):
            out[axis] = size
        padded = [n + _pad_at(self.pads_begin, i) + _pad_at(self.pads_end, i) for i, n in enumerate(data.shape)]
        with np.errstate(all="ignore"):
            scales = [F32(out[axis]) / F32(padded[axis]) for axis in axes]
        return axes, scales, tuple(out)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The output shape, computed without allocating."""
        return [self._plan(inputs[0], inputs[1])[2]]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """The v4 evaluation with the attributes OpenVINO's ``transform_v0_to_v4`` gives."""
        data, target = inputs
        if self.cannot_run_reason:
            raise OpError(self.cannot_run_reason)
        axes, scales, out_shape = self._plan(data, target)
        for axis in axes:
            padded_len = data.shape[axis] + _pad_at(self.pads_begin, axis) + _pad_at(self.pads_end, axis)
            check(padded_len > 0 or out_shape[axis] == 0,
                  f"Interpolate cannot resize axis {axis} of length 0 to {out_shape[axis]}")
        mode = self.mode
        if mode == "linear":
            check(data.ndim <= 5, f"Interpolate-1 linear needs rank <= 5. Got rank {data.ndim}")
            mode = "linear_onnx" if data.ndim < 5 else "linear"
        transform = "asymmetric"
        no_pads = not any(self.pads_begin) and not any(self.pads_end)
        if self.align_corners:
            transform = "align_corners"
        elif mode in ("linear_onnx", "linear") and no_pads and not (data.ndim == 4 and axes == [2, 3]):
            transform = "half_pixel"
        return [self.run(data, axes, scales, out_shape, self.pads_begin, self.pads_end, mode, transform, "simple",
                         self.antialias, -0.75)]
