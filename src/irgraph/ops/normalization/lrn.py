"""LRN-1: local response normalization (AlexNet, GoogLeNet)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import Shape, TensorType
from irgraph.ops.families.convolution_kernels import widen
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check, integer_values
from irgraph.ops.registry import register

ORDERED_WINDOW_TERMS = 64
"""Windows of up to this many elements are summed term by term in the reference's order (one slice add
per term); larger ones through prefix sums, whose cost does not grow with the window."""


def window_sums(values: np.ndarray, axis: int, size: int) -> np.ndarray:
    """Along ``axis``, the sum of the elements at ``[i - (size-1)//2, i + (size-1)//2]`` clipped to the
    tensor, as OpenVINO's reference windows them: differences of f64 prefix sums (the terms are
    squares, never negative, so nothing cancels), O(n) whatever ``size`` is."""
    half = (size - 1) // 2
    length = values.shape[axis]
    prefix = np.concatenate([np.zeros_like(np.take(values, [0], axis=axis), dtype=np.float64),
                             np.cumsum(values, axis=axis, dtype=np.float64)], axis=axis)
    positions = np.arange(length)
    upper = np.take(prefix, np.minimum(length, positions + half + 1), axis=axis)
    lower = np.take(prefix, np.maximum(0, positions - half), axis=axis)
    return (upper - lower).astype(values.dtype)


def ordered_window_sums(values: np.ndarray, axes: Sequence[int], size: int) -> np.ndarray:
    """The window sums of :func:`window_sums` on every axis of ``axes``, added as OpenVINO's reference adds
    them: from 0, each term of the window in row-major order, in the data's precision. One slice add per
    window offset, each over the positions whose term at that offset lies inside the tensor. ``values`` hold no
    -0.0 (LRN passes squares), so on one axis each position's first term is copied instead of added to 0."""
    half = (size - 1) // 2
    if len(axes) == 1:
        return _ordered_sums_on(values, axes[0], half)
    sums = np.zeros_like(values)
    every = [slice(None)] * values.ndim
    for offsets in itertools.product(range(-half, half + 1), repeat=len(axes)):
        target, source = list(every), list(every)
        for axis, offset in zip(axes, offsets, strict=True):
            length = values.shape[axis]
            target[axis] = slice(max(0, -offset), min(length, length - offset))
            source[axis] = slice(max(0, offset), min(length, length + offset))
        window = sums[tuple(target)]
        window += values[tuple(source)]
    return sums


def _ordered_sums_on(values: np.ndarray, axis: int, half: int) -> np.ndarray:
    """:func:`ordered_window_sums` on one axis (LRN across channels): each position's first term is copied, not
    added to 0 (the same value: the terms are squares, never -0.0), then the later terms are added in order."""
    length = values.shape[axis]
    sums = np.empty_like(values)
    before = (slice(None),) * axis
    started = length  # positions [started, length) hold a partial sum
    for offset in range(-half, half + 1):
        low, high = max(0, -offset), min(length, length - offset)
        fresh = min(started, high)
        if low < fresh:  # the first term of these positions
            sums[(*before, slice(low, fresh))] = values[(*before, slice(low + offset, fresh + offset))]
        if started < high:
            window = sums[(*before, slice(started, high))]
            window += values[(*before, slice(started + offset, high + offset))]
        started = min(started, low)
    return sums


@register
@dataclass(frozen=True)
class LRN(Op):
    """data / (bias + alpha / size^len(axes) * sum of squares over the window) ^ beta. Spec: LRN-1.

    The window spans ``(size-1)//2`` elements either side on each axis of ``axes`` (non-negative,
    repeated axes count once). f16/bf16 compute in f32 and round once.
    """

    type_name = "LRN"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("axes"))
    tolerance = Tolerance(ulp=8, eps=4)

    alpha: float = attribute()
    beta: float = attribute()
    bias: float = attribute()
    size: int = attribute()

    def axes_of(self, axes: np.ndarray, rank: int, shape: object) -> list[int]:
        """The distinct axes; OpenVINO's message for one past the rank (negative ones are huge unsigned)."""
        found = sorted(set(integer_values(axes, "axes")))
        for axis in found:
            check(0 <= axis < rank, f"Reduction axis ({axis}) is out of bounds (argument shape: {shape}, reduction "
                                    f"axes: {found})")
        return found

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; axes must be a 1-D integer tensor no longer than the data rank."""
        data, axes = inputs
        if not axes.shape.rank_is_dynamic:
            check(axes.shape.rank == 1, f"Input axes must have rank equals 1 (axes_rank: {axes.shape.rank}).")
            length = axes.shape[0]
            check(not length.is_static or data.shape.rank_is_dynamic or length.value <= data.shape.rank,
                  f"Number of elements of axes must be >= 0 and <= argument rank (axes_shape[0]: {length}).")
        if not data.shape.rank_is_dynamic and values[1] is not None:
            self.axes_of(values[1], data.shape.rank, data.shape)
        check(axes.element_type.is_dynamic or axes.element_type.is_integral,
              f"Axes input must be integral numbers, but are: {axes.element_type}).")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Window sums of the squares (in the reference's order for small windows), then the scale and power."""
        data, axes = inputs
        found = self.axes_of(axes, data.ndim, Shape.static(data.shape))
        values = widen(data)
        with np.errstate(all="ignore"):
            squares = values * values
            if len(range(-((self.size - 1) // 2), (self.size - 1) // 2 + 1)) ** len(found) <= ORDERED_WINDOW_TERMS:
                squares = ordered_window_sums(squares, found, self.size)
            else:
                for axis in found:
                    squares = window_sums(squares, axis, self.size)
            kind = values.dtype.type
            scale = kind(self.alpha) / kind(float(self.size) ** len(found))
            # values / (bias + scale * sums) ** beta, each step written over the sums (an array of this call's own)
            np.multiply(scale, squares, out=squares)
            np.add(kind(self.bias), squares, out=squares)
            np.power(squares, kind(self.beta), out=squares)
            np.divide(values, squares, out=squares)
        return [squares.astype(data.dtype, copy=False)]
