"""MaxPool-1, MaxPool-8 and MaxPool-14: the largest value of each window (and, from 8, where it is)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import overload

import ml_dtypes
import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.families import spatial
from irgraph.ops.families.pooling import Geometry, Pooling, separable_reduce
from irgraph.ops.op import attribute, check, normalize_axis
from irgraph.ops.registry import register


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
    # -0.0 is the only float whose bits are the integer minimum: one reduction, no array of compares
    return data.size == 0 or int(data.view(bits).min()) != np.iinfo(bits).min


@overload
def max_pool(data: np.ndarray, geometry: Geometry, axis: int) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def max_pool(data: np.ndarray, geometry: Geometry, axis: None) -> tuple[np.ndarray, None]: ...


def max_pool(data: np.ndarray, geometry: Geometry, axis: int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Window maxima as OpenVINO's reference finds them, and their flat input indices counted from ``axis``.

    The scan starts at the lowest value (:func:`lowest`) and takes a value only when it is strictly
    greater: the first of equal maxima wins, NaN never does, and a window with nothing above the
    lowest value (all padding, all -inf or NaN) gives the lowest value and the index of its
    channel's first element.
    """
    shape = (*data.shape[:2], *geometry.out_spatial)
    if axis is None and _maximum_is_exact(data):
        maximum = np.fmax if data.dtype.kind not in "biu" else np.maximum
        with np.errstate(invalid="ignore"):  # ml_dtypes' bfloat16 fmax flags NaN operands
            # The maximum over a window is the maximum over its rows of the maximum along each row; the last
            # pass starts at the lowest value, so a window of padding, NaN or values below it gives the lowest
            # value, as the reference's scan does (fmax keeps NaN only where every value is NaN).
            return separable_reduce(data, geometry, maximum, data.dtype.type(lowest(data.dtype))), None
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
        if where is not None and axis is not None:  # where is set only with an axis
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
    introduced = 1

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The pooled shape, the data's element type."""
        (data,) = inputs
        self.check_data(data)
        return [TensorType(data.element_type, self.output_shape(data.shape))]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
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
    introduced = 8

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

    def for_outputs(self, used: Sequence[bool]) -> MaxPool8:
        """Without the indices when nothing reads them (most networks read only the maxima)."""
        if len(used) < 2 or used[1] or not self.indices_read:
            return self
        return replace(self, indices_read=False)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Window maxima and their flat indices, one pass per kernel tap."""
        (data,) = inputs
        axis = normalize_axis(self.axis, data.ndim)
        index_type = self.index_element_type.numpy_dtype
        if not self.indices_read:
            values, _ = max_pool(data, self.geometry(data), None)
            return [values, np.broadcast_to(np.zeros((), index_type), values.shape)]
        values, indices = max_pool(data, self.geometry(data), axis)
        return [values, indices.astype(index_type)]


@register
@dataclass(frozen=True)
class MaxPool14(MaxPool8):
    """MaxPool-8 plus ``rounding_type="ceil_torch"`` (the last window may not start in the end padding).
    Spec: MaxPool-14 (opsets 14-16)."""

    type_name = "MaxPool"
    introduced = 14
    rounding_types = ("floor", "ceil", "ceil_torch")


__all__ = ["MaxPool", "MaxPool8", "MaxPool14", "max_pool", "spatial"]
