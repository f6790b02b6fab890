"""Interpolate's resampling: source coordinates, the nearest, linear, linear_onnx, cubic and Pillow kernels.

Values follow OpenVINO's reference (``reference/interpolate.hpp``), whose arithmetic is f32
throughout: source coordinates, weights and sums are computed in f32 in the reference's order, so
every mode is bit for bit. Everything is
vectorised per axis: a table of source coordinates (and weights) per output position of each axis,
then one gather over the whole output per kernel tap (2**k taps for linear_onnx, 4**k for cubic,
(2r+1)**k for linear over k axes), never a loop over output elements. The shape rules and the ops are
``irgraph.ops.image.interpolate``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError

# The padded input and Pillow's intermediate are real arrays beside the output the interpreter checks: they are
# refused above its default element limit.
from irgraph.core.limits import DEFAULT_ELEMENT_LIMIT
from irgraph.ops.numeric import convert, round_float
from irgraph.ops.op import check

F32 = np.float32
PILLOW_MODES = ("bilinear_pillow", "bicubic_pillow")
TAP_LIMIT = 65536
"""Passes over the output irgraph makes for one linear resize (antialias with a tiny scale needs up to
(2 ceil(2 / scale) + 1) ** k taps; those outside the input are skipped): refused above this."""


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
        """The data at the given per-axis indices (identity on the other axes), output-shaped: a new array.

        One fancy index over every axis (``np.ix_``) walks the output element by element; instead the axes
        whose table is the identity are left alone, an integer upsampling (each source index repeated k times,
        YOLO's nearest Resize by 2) is a few strided copies, and other tables take along their axes one by one."""
        moved = {axis: table for axis, table in tables.items()
                 if table.size != self.data.shape[axis] or not np.array_equal(table, np.arange(table.size))}
        if not self.data.ndim:
            return self.data
        repeats = {axis: _repeat_factor(table, self.data.shape[axis]) for axis, table in moved.items()}
        if moved and all(repeats.values()):
            return self._upsampled(repeats)
        result = self.data
        for axis, table in moved.items():
            result = np.take(result, table, axis=axis)
        return result if moved else self.data.copy()

    def _upsampled(self, repeats: dict[int, int]) -> np.ndarray:
        """The data with each index of the axes of ``repeats`` repeated that many times: the output seen with each
        such axis split in (source index, copy) takes the data once per combination of copies, a strided copy
        of whole source rows (an element-wise broadcast copy with the copies innermost took twice as long)."""
        split_shape: list[int] = []
        copy_positions: list[int] = []
        for axis, length in enumerate(self.data.shape):
            split_shape.append(length)
            if axis in repeats:
                split_shape.append(repeats[axis])
                copy_positions.append(len(split_shape) - 1)
        result = np.empty(self.out_shape, self.data.dtype)
        split = result.reshape(split_shape)
        if math.prod(repeats.values()) > 16:  # large factors: one broadcast copy, not many small ones
            split[...] = self.data.reshape([1 if i in copy_positions else n for i, n in enumerate(split_shape)])
            return result
        for copies in itertools.product(*(range(repeats[axis]) for axis in sorted(repeats))):
            index: list[int | slice] = [slice(None)] * len(split_shape)
            for position, copy in zip(copy_positions, copies, strict=True):
                index[position] = copy
            split[tuple(index)] = self.data
        return result


def _repeat_factor(table: np.ndarray, in_len: int) -> int:
    """k when ``table`` is 0, 0, ..., 1, 1, ... (each source index ``k`` times, in order), else 0."""
    if not in_len or table.size % in_len:
        return 0
    factor = table.size // in_len
    return factor if np.array_equal(table, np.arange(in_len).repeat(factor)) else 0


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


# ------------------------------------------------------------------------------------ one resize
def resample(data: np.ndarray, axes: list[int], scales: list[np.float32], out_shape: tuple[int, ...],
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
