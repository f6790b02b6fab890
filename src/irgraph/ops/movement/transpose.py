"""Transpose-1: permute the axes of a tensor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import DYNAMIC_RANK, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, check, integer_values, shape_text
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Transpose(Op):
    """Permute the axes of ``data`` by ``input_order``; an empty order reverses them. Spec: Transpose-1.

    Entries must be a permutation of ``0..rank-1`` (OpenVINO refuses negative ones). The output is a view.
    """

    type_name = "Transpose"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("input_order"))
    bound_inputs = (0,)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The permuted dims."""
        data, order = inputs
        check(
            order.element_type.is_integral or order.element_type.is_dynamic,
            f"Input order must have an integral number element type. Got: {order.element_type}",
        )
        check(order.shape.rank_is_dynamic or order.shape.rank == 1,
              f"Input order must be a vector. Got: {order.shape}")
        length = None if order.shape.rank_is_dynamic or order.shape[0].is_dynamic else order.shape[0].value
        if not data.shape.rank_is_dynamic and length is not None:
            check(length in (0, data.shape.rank), "Input order must have shape [n], where n is the rank of arg.")
        if values[1] is None:
            return [TensorType(data.element_type,
                               DYNAMIC_RANK if data.shape.rank_is_dynamic else Shape.dynamic(data.shape.rank))]
        if data.shape.rank_is_dynamic:  # a known order's length is the rank (an empty order says nothing)
            return [TensorType(data.element_type, Shape.dynamic(length) if length else DYNAMIC_RANK)]
        axes = _permutation(integer_values(values[1], "input_order"), data.shape.rank, str(data.shape))
        return [TensorType(data.element_type, Shape(tuple(data.shape[a] for a in axes)))]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The permuted shape."""
        shape = np.shape(inputs[0])
        axes = _permutation(integer_values(inputs[1], "input_order"), len(shape), shape_text(shape))
        return [tuple(shape[a] for a in axes)]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``np.transpose`` by a constant order of a valid permutation, worked out once."""
        order = constants[1]
        if order is None or np.ndim(order) != 1 or inputs[0].shape.rank_is_dynamic:
            return None
        try:
            axes = _permutation(integer_values(order, "input_order"), inputs[0].shape.rank, "")
        except OpError:
            return None  # evaluate refuses it, saying why

        def transposed(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.transpose(arrays[0], axes)]

        return transposed

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.transpose``: a view."""
        data, order = inputs
        check(np.ndim(order) == 1, f"Input order must be a vector. Got: {shape_text(np.shape(order))}")
        axes = _permutation(integer_values(order, "input_order"), np.ndim(data), shape_text(np.shape(data)))
        return [np.transpose(data, axes)]


def _permutation(order: list[int], rank: int, shape: str) -> list[int]:
    if not order:
        return list(range(rank))[::-1]
    check(len(order) == rank, "Input order must have shape [n], where n is the rank of arg.")
    check(sorted(order) == list(range(rank)), f"Permutation {shape_text(order)} is not valid for input shape {shape}")
    return order
