"""Unsqueeze-1: insert dims of size 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.memo import remembered, value_key
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values, normalize_axis, shape_text
from irgraph.ops.plan_step import reshaping
from irgraph.ops.registry import register

AXES_RANK = "Second input (axes) should not be of rank higher than 1. Got: {}"


@register
@dataclass(frozen=True)
class Unsqueeze(Op):
    """Insert a 1 at each of ``axes`` (counted in the output rank; repeated axes count once).
    Spec: Unsqueeze-1. The output is a view of the input."""

    type_name = "Unsqueeze"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("axes"))
    bound_inputs = (0,)
    forwards_values = (0,)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input dims with 1s inserted."""
        data, axes = inputs
        check(
            axes.element_type.is_integral or axes.element_type.is_dynamic,
            f"Axes input must be of integral type. Got: {axes.element_type}",
        )
        check(axes.shape.rank_is_dynamic or axes.shape.rank <= 1, AXES_RANK.format(axes.shape))
        if values[1] is None or data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        dims = _inserted(list(data.shape), integer_values(values[1], "axes"))
        return [TensorType(data.element_type, Shape(tuple(dims)))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The input shape with the 1s."""
        return [np.shape(self.evaluate(inputs)[0])]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``np.reshape`` to the static output shape, when the shapes are static."""
        return reshaping(inputs, outputs)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A reshaped view."""
        data, axes = inputs
        key = value_key(axes)
        if key is None:
            return [np.reshape(data, self._unsqueezed(np.shape(data), axes))]
        # remembered per the data's shape and the axes' values: a decoder unsqueezes the same at every step
        shape = np.shape(data)
        return [np.reshape(data, remembered(self, (shape, key), lambda: self._unsqueezed(shape, axes)))]

    @staticmethod
    def _unsqueezed(shape: tuple[int, ...], axes: np.ndarray) -> tuple[int, ...]:
        if np.ndim(axes) > 1:  # the message formatted only on failure
            raise OpError(AXES_RANK.format(shape_text(np.shape(axes))))
        dims = _inserted([Dim.static(s) for s in shape], integer_values(axes, "axes"))
        return tuple(d.value for d in dims)


def _inserted(dims: list[Dim], axes: list[int]) -> list[Dim]:
    """OpenVINO's rule: axes normalised against rank + the number of distinct axis values, repeated
    positions counted once, then a 1 inserted at each position in increasing order (a position past the end appends)."""
    check(len(axes) > 0, "'axes' input is mandatory")
    rank = len(dims) + len(set(axes))
    result = list(dims)
    for position in sorted({normalize_axis(a, rank) for a in axes}):
        result.insert(position, Dim.static(1))
    return result
