"""VariadicSplit-1: cut a tensor into parts of given lengths along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values, normalize_axis, scalar_integer
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


@register
@dataclass(frozen=True)
class VariadicSplit(Op):
    """Split ``data`` along ``axis`` into parts of ``split_lengths``. Spec: VariadicSplit-1.

    One length may be ``-1`` (whatever remains) and zero lengths give empty parts. Stricter than
    OpenVINO: a ``-1`` that would resolve to a negative size is an error (OpenVINO reads out of
    bounds). Outputs are views of the input.
    """

    type_name = "VariadicSplit"
    introduced = 1
    traits = OpTraits(slices_data=True, unconnected_extra_outputs=True)
    inputs = Inputs.of(
        InputSpec("data"), InputSpec("axis"), InputSpec("split_lengths")
    )
    bound_inputs = (0,)  # data movement: a shape vector's bounds split as its values do (OpenVINO: evaluate_lower)

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int | None:
        """One output per split length (unknown while the lengths are)."""
        lengths = input_values[2] if len(input_values) > 2 else None
        return None if lengths is None else int(np.size(lengths))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """Explicit lengths become static dims; ``-1`` resolves on a static axis dim, else ``?``."""
        data, axis, lengths = inputs
        axis_shape, lengths_shape = axis.shape, lengths.shape
        if not axis_shape.rank_is_dynamic:
            check(
                axis_shape.rank == 0 or (axis_shape.rank == 1 and axis_shape[0].contains(1)),
                f"Axis should be a scalar or of shape [1]. Got {axis_shape} instead.",
            )
        if not lengths_shape.rank_is_dynamic:
            check(lengths_shape.rank == 1, f"Split lengths should be a 1-D tensor. Got {lengths_shape.rank} instead.")
        if lengths_shape.rank_is_dynamic or not lengths_shape[0].is_static:
            return []  # the number of outputs is unknown, as in OpenVINO
        count = lengths_shape[0].value
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, data.shape)] * count
        check(data.shape.rank > 0, "VariadicSplit 'data' input must have rank >= 1. Got a scalar")
        axis_value, lengths_value = values[1], values[2]
        if axis_value is None:
            return [TensorType(data.element_type, Shape.dynamic(data.shape.rank))] * count
        index = normalize_axis(integer_values(axis_value, "axis")[0], data.shape.rank)
        if lengths_value is None:
            return [TensorType(data.element_type, data.shape.replace(index, Dim.dynamic()))] * count
        sizes = resolve_lengths(integer_values(lengths_value, "split_lengths"), data.shape[index])
        return [TensorType(data.element_type, data.shape.replace(index, Dim.of(size))) for size in sizes]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Basic slices at the cumulative lengths: views of the input.

        ``data`` needs only ``ndim``, ``shape`` and slicing, as in Split.
        """
        data, axis, lengths = inputs
        check(data.ndim > 0, "VariadicSplit 'data' input must have rank >= 1. Got a scalar")
        if np.size(axis) != 1 or np.ndim(axis) > 1:
            got = ",".join(map(str, np.shape(axis)))
            raise OpError(f"Axis should be a scalar or of shape [1]. Got [{got}] instead.")
        if np.ndim(lengths) != 1:
            raise OpError(f"Split lengths should be a 1-D tensor. Got {np.ndim(lengths)} instead.")
        index = normalize_axis(scalar_integer(axis, "axis"), data.ndim)
        if isinstance(lengths, np.ndarray) and lengths.dtype.kind in "iu":
            values = lengths.tolist()  # what integer_values gives, without its checks for floats
        else:
            values = integer_values(lengths, "split_lengths")
        sizes = resolve_static_lengths(values, data.shape[index])
        head = (slice(None),) * index
        parts = []
        start = 0
        for size in sizes:
            stop = start + size
            parts.append(data[(*head, slice(start, stop))])
            start = stop
        return parts


def resolve_lengths(lengths: list[int], dim: Dim) -> list[int | None]:
    """Check ``lengths`` against the axis ``dim`` and resolve ``-1``; None marks a dynamic size."""
    if dim.is_static:
        return list(resolve_static_lengths(lengths, dim.value))
    _check_lengths(lengths)
    return [None if length == -1 else length for length in lengths]


def resolve_static_lengths(lengths: list[int], size: int) -> list[int]:
    """:func:`resolve_lengths` on an axis of a known ``size``: every length known."""
    _check_lengths(lengths)
    known = sum(length for length in lengths if length != -1)
    if -1 not in lengths:
        check(known == size, f"Total length of splits: {known} must match the length of the chosen axis: {size}")
        return list(lengths)
    remainder = size - known
    if remainder < 0:
        raise OpError(
            f"split_lengths {lengths} leave {remainder} for the -1 entry: the other lengths sum to {known}, "
            f"more than the axis dimension {size}"
        )
    return [remainder if length == -1 else length for length in lengths]


def _check_lengths(lengths: list[int]) -> None:
    """Each length at least -1, and one -1 at most."""
    unknown = -1
    for position, length in enumerate(lengths):
        check(length >= -1, f"Invalid value {length} in split lengths input. Should be >= -1.")
        if length == -1:
            check(unknown == -1, f"Cannot infer split with multiple -1 values at {unknown} and {position}")
            unknown = position
