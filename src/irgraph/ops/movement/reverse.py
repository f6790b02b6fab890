"""Reverse-1: flip a tensor along some axes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, normalize_axis, shape_text
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Reverse(Op):
    """Flip ``data`` along ``axes``: axis numbers (``mode="index"``) or one boolean per axis
    (``mode="mask"``). Spec: Reverse-1. The output is a view (``np.flip``)."""

    type_name = "Reverse"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("axes"))
    bound_inputs = (0,)

    mode: str = attribute()

    def __post_init__(self) -> None:
        check(self.mode in ("index", "mask"), f"Reverse mode must be index or mask. Got: {self.mode!r}")

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input type, once the axes fit it."""
        data, axes = inputs
        check(axes.shape.rank_is_dynamic or axes.shape.rank == 1,
              f"The reversed_axes input must be a 1D tensor (got {axes.shape}).")
        if self.mode == "mask":
            check(axes.element_type.is_dynamic or axes.element_type.name == "BOOLEAN",
                  f"In 'mask' mode the second input must contain boolean values. Got: {axes.element_type}")
        else:
            check(axes.element_type.is_dynamic or axes.element_type.is_integral,
                  f"In 'index' mode the second input must contain integer values. Got: {axes.element_type}")
        if values[1] is not None and not data.shape.rank_is_dynamic:
            self._axes(data.shape.rank, values[1])
        return [data]

    def _axes(self, rank: int, axes: np.ndarray) -> tuple[int, ...]:
        if self.mode == "mask":
            flags = np.asarray(axes).reshape(-1)
            check(flags.size == rank, f"The number of elements in the reversed_axes tensor ({flags.size}) must match "
                                      f"the input data tensor rank ({rank}) in 'mask' mode.")
            return tuple(int(i) for i in np.flatnonzero(flags))
        values = integer_values(axes, "axes")
        for value in values:
            check(-rank <= value < rank, f"Some of the provided axes ({shape_text(values)}) are out of bounds "
                                         f"(input rank: {rank}).")
        return tuple(normalize_axis(v, rank) for v in values)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.flip`` (a view)."""
        data, axes = inputs
        check(np.ndim(axes) == 1, f"The reversed_axes input must be a 1D tensor (got {shape_text(np.shape(axes))}).")
        return [np.flip(data, axis=tuple(set(self._axes(np.ndim(data), axes))))]
