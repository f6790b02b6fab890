"""OneHot-1 and OneHot-16: expand indices into one-hot vectors along a new axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, checked, integer_values
from irgraph.ops.registry import register

INDEX_TYPES = (ElementType.I32, ElementType.I64)
NEGATIVE_MODES = ("ignore_negative", "normalize")


@dataclass(frozen=True)
class OneHotBase(Op):
    """``on_value`` where the index equals the position on the new axis, ``off_value`` elsewhere; indices
    outside ``[0, depth)`` give a vector of ``off_value`` (OneHot-16's ``normalize`` first adds ``depth``
    to negative indices)."""

    type_name = "OneHot"
    inputs = Inputs.of(InputSpec("indices"), InputSpec("depth"), InputSpec("on_value"),
                       InputSpec("off_value"))

    axis: int = attribute()

    @property
    def normalizes_negative(self) -> bool:
        return False

    def _axis(self, rank: int) -> int:
        check(-rank - 1 <= self.axis <= rank,
              f"Axis {self.axis} out of the tensor rank range [{-rank - 1}, {rank}].")
        return self.axis + rank + 1 if self.axis < 0 else self.axis

    @staticmethod
    def _depth(value: np.ndarray) -> int:
        check(np.size(value) == 1, f"depth input must be scalar. Got {np.size(value)} elements")
        depth = integer_values(value, "depth")[0]
        check(depth >= 0, f"can't be negative. Got depth: {depth}")
        return depth

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The indices shape with ``depth`` inserted at ``axis``; the on/off values' element type."""
        indices, depth, on_value, off_value = inputs
        check(indices.element_type.is_dynamic or indices.element_type.is_integral,
              f"Indices must be integral element type. Got: {indices.element_type}")
        check(depth.element_type.is_dynamic or depth.element_type.is_integral,
              f"Depth must be integral element type. Got: {depth.element_type}")
        merged = on_value.element_type.merge(off_value.element_type)
        merged = checked(merged, f"on_value element type must be compatible with off_value element type. Got: "
              f"{on_value.element_type} and {off_value.element_type}")
        for name, tensor in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
            check(tensor.shape.rank_is_dynamic or tensor.shape.rank == 0 or
                  (name == "depth" and tensor.shape.rank == 1 and tensor.shape[0].contains(1)),
                  f"{name} input must be scalar. Got: {tensor.shape}")
        if indices.shape.rank_is_dynamic:
            return [TensorType(merged, Shape(None))]
        axis = self._axis(indices.shape.rank)
        dim = Dim.static(self._depth(values[1])) if values[1] is not None else Dim.dynamic()
        dims = list(indices.shape)
        dims.insert(axis, dim)
        return [TensorType(merged, Shape(tuple(dims)))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The indices shape with ``depth`` inserted at ``axis``."""
        indices = inputs[0]
        shape = list(indices.shape)
        shape.insert(self._axis(indices.ndim), self._depth(inputs[1]))
        return [tuple(shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A comparison of the indices with ``arange(depth)`` on the new axis, then np.where."""
        indices, depth_value, on_value, off_value = inputs
        (shape,) = self.output_shapes(inputs)
        check(on_value.dtype == off_value.dtype,
              f"on_value element type must be compatible with off_value element type. Got: {on_value.dtype} and "
              f"{off_value.dtype}")
        depth = self._depth(depth_value)
        axis = self._axis(indices.ndim)
        wide = indices.astype(np.int64) if indices.dtype != np.uint64 else indices
        if self.normalizes_negative:
            wide = np.where(wide < 0, wide + depth, wide)
        positions = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - axis))
        hot = np.expand_dims(wide, axis) == positions
        result = np.where(hot, on_value.reshape(()), off_value.reshape(()))
        return [np.asarray(result, dtype=on_value.dtype).reshape(shape)]


@register
@dataclass(frozen=True)
class OneHot1(OneHotBase):
    """OneHot-1: indices out of ``[0, depth)``, negative ones included, give ``off_value``. Spec: OneHot-1."""

    introduced = 1


@register
@dataclass(frozen=True)
class OneHot16(OneHotBase):
    """OneHot-16: ``negative_indices_mode`` ``ignore_negative`` (as OneHot-1) or ``normalize`` (a
    negative index counts from the end of the depth). Spec: OneHot-16."""

    introduced = 16

    negative_indices_mode: str = attribute("ignore_negative")

    def __post_init__(self) -> None:
        check(self.negative_indices_mode in NEGATIVE_MODES,
              f"Attribute 'negative_indices_mode' must be one of ignore_negative, normalize. Got: "
              f"{self.negative_indices_mode!r}")

    @property
    def normalizes_negative(self) -> bool:
        return self.negative_indices_mode == "normalize"
