"""MaxPool-1, MaxPool-8 and MaxPool-14: the largest value of each window (and, from 8, where it is)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import ml_dtypes
import numpy as np

from irgraph.element_types import ElementType
from irgraph.ops.families import spatial
from irgraph.ops.families.pooling import Geometry, Pooling
from irgraph.ops.op import attribute, check, normalize_axis
from irgraph.ops.registry import register
from irgraph.shapes import Shape, TensorType


def lowest(dtype: np.dtype) -> object:
    """The reference's starting maximum: ``numeric_limits<T>::lowest()``, the lowest finite value for
    f32, f64 and integers, but -inf for f16 and bf16 (OpenVINO's own classes), False for boolean."""
    if dtype == np.bool_:
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    if dtype.itemsize == 2:
        return -np.inf
    return ml_dtypes.finfo(dtype).min


def _maximum_is_exact(data: np.ndarray) -> bool:
    """True when one ``fmax`` (``maximum`` for integers and booleans) per tap gives the reference's values.

    fmax skips NaN as the reference's ``>`` does (the running maximum starts at a number, so it never
    becomes NaN), and it agrees on every other pair except +0 against -0, where the reference keeps the
    first: so float data must hold no -0.0 (its bit pattern is the signed integer minimum; one compare).
    """
    if data.dtype.kind in "biu":
        return True
    if data.dtype.kind != "f" and data.dtype != ml_dtypes.bfloat16:
        return False
    bits = np.dtype(f"i{data.dtype.itemsize}")
    return not np.any(data.view(bits) == np.iinfo(bits).min)


def _separable_max(data: np.ndarray, geometry: Geometry) -> np.ndarray:
    """The window maxima as one pass per spatial axis, innermost last (see :func:`_maximum_is_exact`).

    The maximum over a window is the maximum over its rows of the maximum along each row, and the last
    pass starts at the lowest value, so a window of padding, NaN or values below it gives the lowest
    value, as the reference's scan does (fmax keeps NaN only where every value is NaN). An axis pass
    costs one ufunc call per tap of that axis (3 + 3 for a 3x3 kernel, not 9), and every pass but the
    last reads whole contiguous rows.
    """
    maximum = np.fmax if data.dtype.kind not in "biu" else np.maximum
    last_axis = len(geometry.kernel) - 1
    reduced = data
    for axis, (kernel, dilation, in_size, out_size, stride, pad) in enumerate(zip(
            geometry.kernel, geometry.dilations, geometry.in_spatial, geometry.out_spatial, geometry.strides,
            geometry.pads_begin, strict=True)):
        before = (slice(None),) * (axis + 2)
        span = out_size + (kernel - 1) * dilation  # the padded row the windows of a unit stride read
        if axis == last_axis and stride == 1 and pad + in_size <= span <= 2 * (in_size + out_size) + 64:
            reduced = _last_axis_unit_stride(reduced, kernel, dilation, pad, out_size, maximum)
            continue
        taps = spatial.live_taps(kernel, dilation, in_size, out_size, stride, pad)
        first_covers = bool(taps) and len(range(out_size)[taps[0][1]]) == out_size
        if axis < last_axis and first_covers:  # no padding on this axis: start from the first tap's values
            result = np.array(reduced[(*before, taps[0][2])])
            taps = taps[1:]
        else:  # the last pass starts at the lowest value (what an all-NaN or all-padding window gives)
            shape = (*reduced.shape[: axis + 2], out_size, *reduced.shape[axis + 3:])
            result = np.full(shape, lowest(data.dtype), dtype=data.dtype)
        with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 fmax flags NaN operands
            for _, out_slice, in_slice in taps:
                target = result[(*before, out_slice)]
                maximum(target, reduced[(*before, in_slice)], out=target)
        reduced = result
    return reduced


def _last_axis_unit_stride(reduced: np.ndarray, kernel: int, dilation: int, pad: int, out_size: int,
                           maximum: np.ufunc) -> np.ndarray:
    """The last pass of :func:`_separable_max` for a unit stride, over whole rows laid end to end.

    Rows padded with the lowest value to the span the windows read, then flattened: tap ``k`` of every
    window of every row is one contiguous slice, offset ``k * dilation``, so each tap is one ufunc call
    over the whole tensor instead of one call per short row (2x faster on 13x13 maps). The windows that
    straddle two rows land in the padding columns, which are cut off.
    """
    start = reduced.dtype.type(lowest(reduced.dtype))
    span = out_size + (kernel - 1) * dilation
    padded = np.full((*reduced.shape[:-1], span), start, dtype=reduced.dtype)
    padded[..., pad:pad + reduced.shape[-1]] = reduced  # the caller checked that the row fits
    flat = padded.reshape(-1)
    length = flat.size - (kernel - 1) * dilation
    result = np.empty(flat.size, dtype=reduced.dtype)
    windows = result[:length]
    with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 fmax flags NaN operands
        maximum(flat[:length], start, out=windows)
        for tap in range(1, kernel):
            maximum(windows, flat[tap * dilation:tap * dilation + length], out=windows)
    return np.ascontiguousarray(result.reshape(padded.shape)[..., :out_size])


def max_pool(data: np.ndarray, geometry: Geometry, axis: int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Window maxima as OpenVINO's reference finds them, and their flat input indices counted from ``axis``.

    The scan starts at the lowest value (:func:`lowest`) and takes a value only when it is strictly
    greater: the first of equal maxima wins, NaN never does, and a window with nothing above the
    lowest value (all padding, all -inf or NaN) gives the lowest value and the index of its
    channel's first element.
    """
    shape = (*data.shape[:2], *geometry.out_spatial)
    if axis is None and _maximum_is_exact(data):
        return _separable_max(data, geometry), None
    best = np.full(shape, lowest(data.dtype), dtype=data.dtype)
    multipliers = np.cumprod((1, *data.shape[::-1]))[-2::-1].tolist()  # element strides of each dim
    where = None
    if axis is not None:  # start at the index of the window's channel: (n, c, 0, ...) counted from axis
        batch = np.arange(data.shape[0]) * (multipliers[0] if axis == 0 else 0)
        channel = np.arange(data.shape[1]) * (multipliers[1] if axis <= 1 else 0)
        start = (batch[:, None] + channel[None, :]).reshape(data.shape[:2] + (1,) * len(geometry.out_spatial))
        where = np.broadcast_to(start, shape).astype(np.int64)
    for out_slices, in_slices in geometry.taps():
        candidate = data[(slice(None), slice(None), *in_slices)]
        target = best[(slice(None), slice(None), *out_slices)]
        with np.errstate(invalid="ignore"):
            better = candidate > target
        np.copyto(target, candidate, where=better)
        if where is not None:
            flat = np.zeros((1,) * data.ndim, dtype=np.int64)
            ranges = [np.arange(data.shape[0]), np.arange(data.shape[1])]
            ranges += [np.arange(size)[s] for size, s in zip(data.shape[2:], in_slices, strict=True)]
            for dim in range(axis, data.ndim):
                view = [1] * data.ndim
                view[dim] = -1
                flat = flat + ranges[dim].reshape(view) * multipliers[dim]
            np.copyto(where[(slice(None), slice(None), *out_slices)], flat, where=better)
    return best, where


@dataclass(frozen=True)
class MaxPoolBase(Pooling):
    """What the three versions share: any element type but string, the window maximum."""

    def check_data(self, data: TensorType) -> None:
        """Strings have no order here."""
        check(data.element_type is not ElementType.STRING, "MaxPool cannot take strings")


@register
@dataclass(frozen=True)
class MaxPool(MaxPoolBase):
    """Window maxima. Spec: MaxPool-1 (opsets 1-7; rounding floor or ceil, no dilations, no indices)."""

    type_name = "MaxPool"
    opsets = range(1, 8)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The pooled shape, the data's element type."""
        (data,) = inputs
        self.check_data(data)
        return [TensorType(data.element_type, self.output_shape(data.shape))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The pooled shape, computed without allocating."""
        return [self.output_shape(Shape.static(inputs[0].shape)).to_tuple()]

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """Window maxima, one pass per kernel tap."""
        (data,) = inputs
        return [max_pool(data, self.geometry(data), None)[0]]


@register
@dataclass(frozen=True)
class MaxPool8(MaxPoolBase):
    """Window maxima and their indices. Spec: MaxPool-8 (opsets 8-13): dilations, index_element_type, axis.

    The indices are flat positions in the input counted over the dims from ``axis`` on (axis 0:
    the whole tensor; axis 2: within one channel of one batch item).
    """

    type_name = "MaxPool"
    opsets = range(8, 14)

    attribute_order = ("strides", "dilations", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad",
                       "index_element_type", "axis")  # as OpenVINO 2026.4.1 writes MaxPool-8/14

    dilations: tuple[int, ...] = attribute(())
    index_element_type: ElementType = attribute(ElementType.I64)
    axis: int = attribute(0)
    indices_read: bool = field(default=True, compare=False, repr=False)
    """False when nothing reads the indices (see ``for_outputs``): ``evaluate`` then gives a zero-memory
    placeholder of their shape and type instead of computing them."""

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.index_element_type in (ElementType.I32, ElementType.I64),
              f"Index element type must be i32 or i64. Got: {self.index_element_type}")

    @property
    def window_dilations(self) -> tuple[int, ...]:
        """The dilations (ones when the attribute is empty)."""
        return self.dilations or (1,) * len(self.kernel)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Values of the data's element type and indices of ``index_element_type``, both of the pooled shape."""
        (data,) = inputs
        self.check_data(data)
        if not data.shape.rank_is_dynamic:
            normalize_axis(self.axis, data.shape.rank)
        shape = self.output_shape(data.shape)
        return [TensorType(data.element_type, shape), TensorType(self.index_element_type, shape)]

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Values and indices."""
        return 2

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The pooled shape twice, computed without allocating."""
        shape = self.output_shape(Shape.static(inputs[0].shape)).to_tuple()
        return [shape, shape]

    def for_outputs(self, used: Sequence[bool]) -> MaxPool8:
        """Without the indices when nothing reads them (most networks read only the maxima)."""
        if len(used) < 2 or used[1] or not self.indices_read:
            return self
        return replace(self, indices_read=False)

    def evaluate(self, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None] = ()) -> list[np.ndarray]:
        """Window maxima and their flat indices, one pass per kernel tap."""
        (data,) = inputs
        axis = normalize_axis(self.axis, data.ndim)
        index_type = self.index_element_type.numpy_dtype
        if not self.indices_read:
            values, _ = max_pool(data, self.geometry(data), None)
            return [values, np.broadcast_to(np.zeros((), index_type), values.shape)]
        values, indices = max_pool(data, self.geometry(data), axis)
        return [values, indices.astype(index_type)]  # type: ignore[union-attr]


@register
@dataclass(frozen=True)
class MaxPool14(MaxPool8):
    """MaxPool-8 plus ``rounding_type="ceil_torch"`` (the last window may not start in the end padding).
    Spec: MaxPool-14 (opsets 14-16)."""

    type_name = "MaxPool"
    opsets = range(14, 17)
    rounding_types = ("floor", "ceil", "ceil_torch")


__all__ = ["MaxPool", "MaxPool8", "MaxPool14", "max_pool", "spatial"]
