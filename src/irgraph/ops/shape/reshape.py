"""Reshape-1: the same elements under another shape."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, PartialValue, Shape, TensorType
from irgraph.ops.memo import remembered, value_key
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, shape_text
from irgraph.ops.plan_step import reshaping
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Reshape(Op):
    """``data`` with the shape ``shape``: one ``-1`` takes what remains; with ``special_zero`` a
    ``0`` copies the input dim at its index. Spec: Reshape-1.

    The output is a view of the input wherever NumPy can make one. Shape inference takes the
    target as exact values or as bounds (from a ShapeOf sub-graph) and gives the interval dims
    OpenVINO gives: a ``-1`` is the input's element count divided by the other dims, as
    intervals (copied ``0`` dims cancel out of both).
    """

    type_name = "Reshape"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("shape", bounds=True))
    bound_inputs = (0,)
    forwards_values = (0,)

    special_zero: bool = attribute()

    def infer(
        self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | PartialValue | None]
    ) -> list[TensorType]:
        """Target dims from the pattern's values or bounds; ``-1`` resolved over intervals."""
        data, pattern = inputs
        check(
            pattern.element_type.is_integral or pattern.element_type.is_dynamic,
            f"Pattern must be an integral number. Got: {pattern.element_type}",
        )
        check(
            pattern.shape.rank_is_dynamic or pattern.shape.rank <= 1,
            f"Pattern shape must have rank 1 or be empty. Got: {pattern.shape}",
        )
        value = values[1] if len(values) > 1 else None
        if value is None:
            if pattern.shape.rank_is_dynamic:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            if pattern.shape.rank == 0:  # before reading its length: a scalar pattern has none (it is one dim)
                return [TensorType(data.element_type, Shape.dynamic(1))]
            if pattern.shape[0].is_dynamic:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            return [TensorType(data.element_type, Shape.dynamic(pattern.shape[0].value))]
        if isinstance(value, PartialValue):
            lows = [int(v) for v in value.lower.reshape(-1).tolist()]
            highs = [int(v) for v in value.upper.reshape(-1).tolist()]
            dims = value.dims()
            entries: list[int | Dim] = [low if low == high else dim for low, high, dim in zip(lows, highs, dims,
                                                                                            strict=True)]
        else:
            entries = list(integer_values(value, "shape"))
        return [TensorType(data.element_type, self._target(data.shape, entries))]

    def _target(self, source: Shape, entries: list[int | Dim]) -> Shape:
        exact = [e for e in entries if isinstance(e, int)]
        check(exact.count(-1) <= 1, "More than one dimension has size of -1")
        for index, entry in enumerate(entries):
            if isinstance(entry, int) and entry < -1:
                raise OpError(f"Output pattern dim[{index}] has invalid bounds: {entry},{entry}")
        dims: list[Dim | None] = []
        copied: set[int] = set()
        for index, entry in enumerate(entries):
            if isinstance(entry, Dim):
                dims.append(entry)
            elif entry == -1:
                dims.append(None)
            elif entry == 0 and self.special_zero:
                if source.rank_is_dynamic:
                    dims.append(Dim.dynamic())
                    continue
                if index >= source.rank:
                    raise OpError(f"'0' dimension is out of range. Got: pattern index {index}, input shape {source}")
                dims.append(source[index])
                copied.add(index)
            else:
                dims.append(Dim.static(entry))
        target = [self._remaining(source, dims, copied) if dim is None else dim for dim in dims]  # one -1 at most
        if source.is_static and all(d.is_static for d in target):
            # Stricter than OpenVINO 2026.4.1, which accepts [1,0] -> [0] with special_zero (output [1])
            # and then reads an element the input does not have.
            have, want = math.prod(source.to_tuple()), math.prod(d.value for d in target)
            if have != want:  # the message built only on failure: formatting shapes costs more than the check
                raise OpError(f"Requested output shape {shape_text([d.value for d in target])} is incompatible with "
                              f"input shape {source}")
        return Shape(tuple(target))

    @staticmethod
    def _remaining(source: Shape, dims: list[Dim | None], copied: set[int]) -> Dim:
        """The ``-1`` dim: the input's element count over the other output dims, as intervals."""
        if source.rank_is_dynamic:
            return Dim.dynamic()
        low_in, high_in = _product([d for i, d in enumerate(source) if i not in copied])
        low_out, high_out = _product([d for i, d in enumerate(dims) if d is not None and i not in copied])
        if high_out == 0:
            check(
                any(d.max == 0 for d in source),
                "Cannot infer '-1' dimension with zero-size output dimension unless at least one input dimension "
                "is also zero-size",
            )
            return Dim.static(1)
        if low_out == 0:
            return Dim.dynamic()
        if source.is_static and all(d is not None and d.is_static for i, d in enumerate(dims) if i not in copied
                                    and d is not None):
            if low_in % low_out:
                wanted = [-1 if d is None else d.value for d in dims]
                raise OpError(f"Requested output shape {shape_text(wanted)} is incompatible with input shape "
                              f"{source}")
            return Dim.static(low_in // low_out)
        low = -(-low_in // high_out) if high_out is not None else 0
        high = None if high_in is None else high_in // low_out
        if high is not None and high < low:
            raise OpError(f"Requested output shape is incompatible with input shape {source}")
        return Dim(low, high)

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The target shape: the pattern's values resolved against the data's shape (remembered per both: a
        decoder reshapes the same shapes by the same patterns at every step)."""
        data, pattern = inputs
        key = value_key(pattern)
        if key is None:
            return [self._resolved(data, pattern)]
        return [remembered(self, (np.shape(data), key), lambda: self._resolved(data, pattern))]

    def _resolved(self, data: np.ndarray, pattern: np.ndarray) -> tuple[int, ...]:
        if np.ndim(pattern) > 1:
            raise OpError(f"Pattern shape must have rank 1 or be empty. Got: {shape_text(np.shape(pattern))}")
        entries = integer_values(pattern, "shape")
        return self._target(Shape.static(np.shape(data)), list(entries)).to_tuple()

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``np.reshape`` to the static output shape, when the shapes are static."""
        return reshaping(inputs, outputs)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.reshape``: a view where NumPy can make one."""
        (target,) = self.output_shapes(inputs)
        return [np.reshape(inputs[0], target)]


def _product(dims: Sequence[Dim]) -> tuple[int, int | None]:
    """The interval product of ``dims``: (min, max or None when unbounded)."""
    low = math.prod(d.min for d in dims)
    maxima = [d.max for d in dims]
    if 0 in maxima:
        return low, 0
    bounded = [bound for bound in maxima if bound is not None]
    return low, (math.prod(bounded) if len(bounded) == len(maxima) else None)
