"""Slice-8: NumPy-style slicing with start, stop, step and optional axes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, checked, integer_values, normalize_axis
from irgraph.ops.registry import register

_FAR = 2**62
"""A size standing in for "unbounded" when an unbounded dim's sliced length is probed."""


def slice_indices(size: int, start: int, stop: int, step: int) -> tuple[int, int, int]:
    """OpenVINO's clamping as ``range`` arguments: Python's, except that a negative step from a start
    below ``-size`` starts at element 0 (OpenVINO 2026.4.1), where Python's slicing takes nothing."""
    begin, end, stride = slice(start, stop, step).indices(size)
    if step < 0 and start < -size and size > 0:
        begin = 0
    return begin, end, stride


def python_slice(size: int, start: int, stop: int, step: int) -> slice:
    """The NumPy slice of :func:`slice_indices` (a stop before element 0 is ``None``)."""
    begin, end, stride = slice_indices(size, start, stop, step)
    return slice(begin, None if end < 0 else end, stride)


def sliced_length(size: int, start: int, stop: int, step: int) -> int:
    """The number of elements the slice takes from a dim of ``size``."""
    return len(range(*slice_indices(size, start, stop, step)))


def sliced_dim(dim: Dim, start: int, stop: int, step: int) -> Dim:
    """The sliced length of an interval dim: the lengths at its ends and at the sizes where the
    clamping changes (the length is monotonic between them); unbounded when it grows without end."""
    if dim.is_static:
        return Dim.static(sliced_length(dim.value, start, stop, step))
    high = dim.max if dim.max is not None else _FAR
    points = {dim.min, high}
    for edge in (abs(start), abs(stop)):
        for size in (edge - 1, edge, edge + 1):
            if dim.min <= size <= high:
                points.add(size)
    lengths = [sliced_length(size, start, stop, step) for size in points]
    upper: int | None = max(lengths)
    if dim.max is None and sliced_length(_FAR, start, stop, step) > sliced_length(_FAR // 2, start, stop, step):
        upper = None
    return Dim(min(lengths), upper)


def corner_values(
    values: Sequence[np.ndarray | PartialValue | None], bounded: Sequence[int]
) -> list[list[np.ndarray | PartialValue | None]] | None:
    """The input value lists at every corner of the ``bounded`` inputs' bounds (lower or upper of
    each), for ops whose output length is monotonic in those values; None when a bound crosses
    zero (a negative index counts from the end: the corners would not be the extremes)."""
    combos: list[list[np.ndarray | PartialValue | None]] = [list(values)]
    for index in bounded:
        value = values[index]
        if not isinstance(value, PartialValue):
            continue
        if bool(np.any((value.lower < 0) & (value.upper >= 0))):
            return None
        combos = [[*combo[:index], bound, *combo[index + 1:]] for combo in combos for bound in (value.lower,
                                                                                                  value.upper)]
    return combos


def hull(shapes: Sequence[Shape]) -> Shape:
    """The smallest partial shape holding every one of ``shapes`` (all of one rank)."""
    if any(s.rank_is_dynamic for s in shapes) or len({s.rank for s in shapes}) != 1:
        return DYNAMIC_RANK
    dims = []
    for column in zip(*(s.dims for s in shapes), strict=True):
        high = None if any(d.max is None for d in column) else max(d.max for d in column)
        dims.append(Dim(min(d.min for d in column), high))
    return Shape(tuple(dims))


@register
@dataclass(frozen=True)
class Slice(Op):
    """``data[start:stop:step]`` along ``axes`` (all leading axes when omitted). Spec: Slice-8.

    Out-of-range starts and stops clamp as in Python; ``step`` may be negative, never 0. The
    output is a view. Interval dims give the interval of the lengths they allow; a start or stop
    known by its bounds (``x[:, :seq_len]`` with ``seq_len`` from a ShapeOf) gives the lengths
    between its corners, as OpenVINO does.
    """

    type_name = "Slice"
    introduced = 8
    inputs = Inputs.optional(
        4,
        InputSpec("data"), InputSpec("start", bounds=True),
        InputSpec("stop", bounds=True),
        InputSpec("step"), InputSpec("axes"),
    )
    bound_inputs = (0,)

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """Sliced dims where the start, stop, step and axes values are known."""
        data = inputs[0]
        for tensor, name in zip(inputs[1:], ("start", "stop", "step", "axes"), strict=False):
            check(
                tensor.element_type.is_integral or tensor.element_type.is_dynamic,
                f"Slice `{name}` input type must be integer. Got: {tensor.element_type}",
            )
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 1,
                  f"Slice `{name}` input must be a 1D tensor. Got: {tensor.shape}")
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        start = inputs[1].shape
        count = None if start.rank_is_dynamic or start[0].is_dynamic else start[0].value
        check(count is None or count <= data.shape.rank,
              "Slice `start` input dim size can't be bigger than `data` rank.")
        if any(v is None for v in values[1:]):
            return [TensorType(data.element_type, self._unknown(data.shape, count, values))]
        arrays = [v for v in values if not isinstance(v, PartialValue)]
        if len(arrays) < len(values):  # start/stop from a shape sub-graph
            combos = corner_values(values, (1, 2))
            if combos is None:
                return [TensorType(data.element_type, Shape.dynamic(data.shape.rank))]
            return [TensorType(data.element_type, hull([self.infer(inputs, c)[0].shape for c in combos]))]
        plan = self.plan(data.shape.rank, arrays)
        dims = [dim if index not in plan else sliced_dim(dim, *plan[index]) for index, dim in enumerate(data.shape)]
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    @staticmethod
    def _unknown(shape: Shape, count: int | None, values: Sequence[np.ndarray | PartialValue | None]) -> Shape:
        """Unknown start, stop or step: each sliced axis keeps at most its size (OpenVINO's ``..d``);
        the axes are the first ``count`` without an axes input, the known ``axes``, or all of them."""
        axes: set[int] | None = None
        if len(values) > 4:
            if values[4] is not None and not isinstance(values[4], PartialValue):
                axes = {normalize_axis(a, shape.rank) for a in integer_values(values[4], "axes")}
        elif count is not None:
            axes = set(range(count))
        return Shape(tuple(Dim(0, d.max) if axes is None or i in axes else d for i, d in enumerate(shape)))

    def plan(self, rank: int, values: Sequence[np.ndarray | None]) -> dict[int, tuple[int, int, int]]:
        """axis -> (start, stop, step) from the known values of inputs 1.. (the data's, input 0, may be unknown)."""
        start, stop, step, *axes_value = (integer_values(checked(v, f"Slice `{n}` is not known"), n)
                                          for v, n in zip(values[1:], ("start", "stop", "step", "axes"), strict=False))
        axes = axes_value[0] if axes_value else list(range(len(start)))
        check(
            len(start) == len(stop) == len(step) == len(axes),
            f"Slice `start`, `stop`, `step` and `axes` inputs must have the same size. Got: {len(start)}, "
            f"{len(stop)}, {len(step)}, {len(axes)}",
        )
        check(all(s != 0 for s in step), "Step must be non-zero. Got: " + str(step))
        plan: dict[int, tuple[int, int, int]] = {}
        for axis, begin, end, stride in zip(axes, start, stop, step, strict=True):
            index = normalize_axis(axis, rank)
            if index in plan:
                raise OpError(f"Slice values in `axes` input must be unique. Got: {axes}")
            plan[index] = (begin, end, stride)
        return plan

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The sliced shape."""
        return [np.shape(self.evaluate(inputs)[0])]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Basic slicing: a view."""
        data = inputs[0]
        for value, name in zip(inputs[1:], ("start", "stop", "step", "axes"), strict=False):
            check(np.ndim(value) == 1, f"Slice `{name}` input must be a 1D tensor. Got rank: {np.ndim(value)}")
        plan = self.plan(np.ndim(data), inputs)
        shape = np.shape(data)
        key = tuple(python_slice(shape[i], *plan[i]) if i in plan else slice(None) for i in range(len(shape)))
        return [data[key]]
