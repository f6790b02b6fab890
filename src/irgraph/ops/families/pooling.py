"""Pooling: MaxPool and AvgPool share their window, padding and output-size rules.

A member declares its attributes (each version has its own set) and ``pool``; the base gives
``infer`` (OpenVINO 2026.4.1's ``pooling_shape_inference_util.hpp``: rank 3..5, attribute lengths,
zero strides or dilations, batch or channels of 0, a kernel larger than the padded data, and the
output size for ``floor``, ``ceil`` and ``ceil_torch`` rounding, intervals included) and the
per-dimension geometry used by ``evaluate``.

Evaluation loops over kernel taps, never over output positions: for one tap the output positions
whose input lies inside the data are one strided slice (``spatial.offset_slices``), so padding
allocates nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irgraph.core.shapes import Dim, Shape
from irgraph.ops.families import spatial
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check

ROUNDING_TYPES = ("floor", "ceil", "ceil_torch")


@dataclass(frozen=True)
class Geometry:
    """Resolved per-dimension window parameters of one pooling on a static input."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    in_spatial: tuple[int, ...]
    out_spatial: tuple[int, ...]

    def taps(self) -> Iterator[tuple[tuple[slice, ...], tuple[slice, ...]]]:
        """For each kernel tap that reaches the data, in row-major order (the reference's scan order):
        the output slices and the input slices it reads."""
        per_axis = [spatial.live_taps(k, d, i, o, s, p) for k, d, i, o, s, p in
                    zip(self.kernel, self.dilations, self.in_spatial, self.out_spatial, self.strides, self.pads_begin,
                        strict=True)]
        for combination in itertools.product(*per_axis):
            yield tuple(t[1] for t in combination), tuple(t[2] for t in combination)

    def window_counts(self, include_padding: bool) -> np.ndarray:
        """Per output position, how many taps fall inside the data (or inside the padded data when
        ``include_padding``): the product of the per-dimension counts."""
        counts = np.ones((), dtype=np.int64)
        for axis, out_size in enumerate(self.out_spatial):
            low, high = (-self.pads_begin[axis], self.in_spatial[axis] + self.pads_end[axis]) if include_padding else (
                0, self.in_spatial[axis])
            per_axis = spatial.tap_counts(self.kernel[axis], self.dilations[axis], self.strides[axis],
                                          self.pads_begin[axis], out_size, low, high)
            counts = np.multiply.outer(counts, per_axis)
        return counts


SHORT_ROW = 24
"""Rows of at most this many elements (padding included) take the end-to-end last pass."""


def separable_reduce(data: np.ndarray, geometry: Geometry, combine: np.ufunc, fill: object) -> np.ndarray:
    """Every window of ``data`` reduced by ``combine`` (np.add, np.fmax, ...) as one pass per spatial axis,
    innermost last: an axis pass costs one ufunc call per tap of that axis (3 + 3 for a 3x3 kernel, not 9).

    ``fill`` stands for the padding and starts the last pass (0 for sums, the lowest value for maxima), so a
    window holding no data gives it. Every pass but the last reads whole contiguous rows; the last, for a
    unit stride, runs over the rows laid end to end (:func:`_last_axis_unit_stride`).
    """
    last_axis = len(geometry.kernel) - 1
    reduced = data
    for axis, (kernel, dilation, in_size, out_size, stride, pad) in enumerate(zip(
            geometry.kernel, geometry.dilations, geometry.in_spatial, geometry.out_spatial, geometry.strides,
            geometry.pads_begin, strict=True)):
        before = (slice(None),) * (axis + 2)
        span = out_size + (kernel - 1) * dilation  # the padded row the windows of a unit stride read
        # Rows laid end to end pay a padded copy and a cut: worth it on short rows only, where a call per row
        # costs more than the data it moves (2x on 14x14 and smaller maps, even at 28x28, slower beyond).
        if axis == last_axis and stride == 1 and pad + in_size <= span <= SHORT_ROW:
            reduced = _last_axis_unit_stride(reduced, kernel, dilation, pad, out_size, combine, fill)
            continue
        taps = spatial.live_taps(kernel, dilation, in_size, out_size, stride, pad)
        first_covers = bool(taps) and len(range(out_size)[taps[0][1]]) == out_size
        if axis < last_axis and first_covers and len(taps) > 1 and len(range(out_size)[taps[1][1]]) == out_size:
            # no padding on this axis: the first two taps combined make the result (no copy of the first)
            result = combine(reduced[(*before, taps[0][2])], reduced[(*before, taps[1][2])])
            taps = taps[2:]
        elif axis < last_axis and first_covers:  # no padding on this axis: start from the first tap's values
            result = np.array(reduced[(*before, taps[0][2])])
            taps = taps[1:]
        else:
            shape = (*reduced.shape[: axis + 2], out_size, *reduced.shape[axis + 3:])
            result = np.full(shape, fill, dtype=data.dtype)
        for _, out_slice, in_slice in taps:
            target = result[(*before, out_slice)]
            combine(target, reduced[(*before, in_slice)], out=target)
        reduced = result
    return reduced


def _last_axis_unit_stride(reduced: np.ndarray, kernel: int, dilation: int, pad: int, out_size: int,
                           combine: np.ufunc, fill: object) -> np.ndarray:
    """The last pass of :func:`separable_reduce` for a unit stride, over whole rows laid end to end.

    Rows padded with ``fill`` to the span the windows read, then flattened: tap ``k`` of every window of
    every row is one contiguous slice, offset ``k * dilation``, so each tap is one ufunc call over the whole
    tensor instead of one call per short row (2x faster on 13x13 maps). The windows that straddle two rows
    land in the padding columns, which are cut off.
    """
    span = out_size + (kernel - 1) * dilation
    padded = np.full((*reduced.shape[:-1], span), fill, dtype=reduced.dtype)
    padded[..., pad:pad + reduced.shape[-1]] = reduced  # the caller checked that the row fits
    flat = padded.reshape(-1)
    length = flat.size - (kernel - 1) * dilation
    result = np.empty(flat.size, dtype=reduced.dtype)
    windows = result[:length]
    combine(flat[:length], reduced.dtype.type(fill), out=windows)
    for tap in range(1, kernel):
        combine(windows, flat[tap * dilation:tap * dilation + length], out=windows)
    return np.ascontiguousarray(result.reshape(padded.shape)[..., :out_size])


def _starts_in_padding(steps: int, stride: int, size: int, pad_begin: int) -> bool:
    """True when a window starting at ``steps * stride`` lies past the data (OpenVINO compares in
    size_t: ``size + pad_begin - 1`` of 0 - 1 wraps to the largest value, so nothing is past it)."""
    return size + pad_begin >= 1 and steps * stride > size + pad_begin - 1


@dataclass(frozen=True)
class Pooling(Op):
    """Base of MaxPool and AvgPool; members declare the attributes of their version.

    Every member has ``strides``, ``pads_begin``, ``pads_end``, ``kernel``, ``rounding_type`` and
    ``auto_pad``; ``dilations`` only where the version has them (ones otherwise).
    """

    inputs = Inputs.of(InputSpec("data"))
    rounding_types: ClassVar[tuple[str, ...]] = ("floor", "ceil")
    """The rounding types the version takes (``ceil_torch`` from opset14)."""

    strides: tuple[int, ...] = attribute(())
    pads_begin: tuple[int, ...] = attribute(())
    pads_end: tuple[int, ...] = attribute(())
    kernel: tuple[int, ...] = attribute(())
    rounding_type: str = attribute("floor")
    auto_pad: str = attribute("explicit")

    def __post_init__(self) -> None:
        object.__setattr__(self, "auto_pad", spatial.check_auto_pad(self.auto_pad))
        rounding = self.rounding_type.lower()
        check(rounding in ROUNDING_TYPES,
              f"Invalid 'rounding_type' value '{self.rounding_type}'. Expected one of: {', '.join(ROUNDING_TYPES)}")
        check(rounding in self.rounding_types, "Rounding CEIL_TORCH is not supported.")
        object.__setattr__(self, "rounding_type", rounding)
        check(all(p >= 0 for p in (*self.pads_begin, *self.pads_end)),
              f"Pads must not be negative (OpenVINO reads them as unsigned). Got: pads_begin {list(self.pads_begin)}, "
              f"pads_end {list(self.pads_end)}")

    @property
    def window_dilations(self) -> tuple[int, ...]:
        """The dilations; members with a ``dilations`` attribute override this (ones otherwise)."""
        return (1,) * len(self.kernel)

    # ---------------------------------------------------------------- shapes
    def check_attributes(self, data: Shape) -> None:
        """OpenVINO's attribute checks against the data shape, with its messages."""
        kernel, strides, dilations = self.kernel, self.strides, self.window_dilations
        check(data.rank_is_dynamic or data.rank in (3, 4, 5),
              f"Expected a 3D, 4D or 5D tensor for the input. Got: {data}")
        count = len(kernel)
        check(len(self.pads_begin) == count,
              f"Expected pads_begin size to be equal to input size - 2. Got: {len(self.pads_begin)}")
        check(len(self.pads_end) == count,
              f"Expected pads_end size to be equal to input size - 2. Got: {len(self.pads_end)}")
        check(len(strides) == count, f"Expected strides size to be equal to input size - 2. Got: {len(strides)}")
        check(len(dilations) == count, f"Expected dilations size to be equal to kernel size. Got: {len(dilations)}")
        check(data.rank_is_dynamic or count == data.rank - 2,
              f"Expected kernel size to be equal to input size - 2. Got: {count}")
        spatial.check_positive(strides, "Strides has zero dimension(s). Strides")
        spatial.check_positive(dilations, "Kernel dilations has zero dimension(s). Strides")
        for axis, size in enumerate(kernel):
            check(size > 0, f"Kernel after dilation has dimension less than 1 (dim: {size}) at axis {axis}.")

    def pads_for(self, data_dims: Sequence[Dim]) -> tuple[list[int], list[int]]:
        """pads_begin, pads_end after auto_pad (a dynamic dim under same_* gets none)."""
        count = len(self.kernel)
        if self.auto_pad == "valid":
            return [0] * count, [0] * count
        if self.auto_pad not in spatial.SAME:
            return list(self.pads_begin), list(self.pads_end)
        begin, end = [0] * count, [0] * count
        for axis, dim in enumerate(data_dims):
            if dim.is_static:
                begin[axis], end[axis] = spatial.same_padding(dim.value, self.kernel[axis], self.window_dilations[axis],
                                                              self.strides[axis], self.auto_pad == "same_upper")
        return begin, end

    def output_shape(self, data: Shape) -> Shape:
        """The pooled shape (batch and channels kept)."""
        self.check_attributes(data)
        count = len(self.kernel)
        if data.rank_is_dynamic:
            return Shape.dynamic(count + 2)
        batch, channels = data[0], data[1]
        check(not (batch.is_static and batch.value == 0), "Batch size is zero.")
        check(not (channels.is_static and channels.value == 0), "Channel count is zero.")
        data_dims = tuple(data)[2:]
        begin, end = self.pads_for(data_dims)
        dims = [batch, channels]
        for axis, dim in enumerate(data_dims):
            dims.append(self.output_dim(axis, dim, begin[axis], end[axis]))
        return Shape(tuple(dims))

    def output_dim(self, axis: int, dim: Dim, pad_begin: int, pad_end: int) -> Dim:
        """One spatial output dim (OpenVINO's ``append_spatial_shape``)."""
        if not dim.is_static and self.auto_pad in spatial.SAME:
            return Dim.dynamic()
        padded = dim.shifted(pad_begin + pad_end)
        window = spatial.dilated(self.kernel[axis], self.window_dilations[axis])
        if dim.is_static:
            check(window <= padded.value,
                  f"Kernel after dilation has size (dim: {window}) larger than the data shape after padding "
                  f"(dim: {padded.value}) at axis {axis}.")
            self.check_window_padding(axis, window, pad_begin, pad_end)
        stride = self.strides[axis]
        divide = Dim.floor_div if self.rounding_type == "floor" else Dim.ceil_div
        steps = divide(padded - window, stride)
        if self.rounding_type != "ceil_torch":
            return steps + 1
        # ceil_torch: the last window may not start in the end padding.
        low = steps.min + (0 if _starts_in_padding(steps.min, stride, dim.min, pad_begin) else 1)
        if dim.is_static:
            return Dim.static(low)
        if dim.max is None or steps.max is None:  # steps.max is computed from dim.max: both known or neither
            return Dim(low, None)
        high = steps.max + (0 if _starts_in_padding(steps.max, stride, dim.max, pad_begin) else 1)
        return Dim(low, high)

    def check_window_padding(self, axis: int, window: int, pad_begin: int, pad_end: int) -> None:
        """Members that refuse windows lying wholly in the padding (AvgPool) check it here."""

    def geometry(self, data: np.ndarray) -> Geometry:
        """The resolved window parameters for ``data`` (checks included)."""
        shape = self.output_shape(Shape.static(data.shape)).to_tuple()
        begin, end = self.pads_for([Dim.static(d) for d in data.shape[2:]])
        return Geometry(tuple(self.kernel), tuple(self.strides), self.window_dilations, tuple(begin), tuple(end),
                        tuple(data.shape[2:]), shape[2:])
