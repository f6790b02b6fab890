"""Squeeze-1 and Squeeze-15: remove dims of size 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import DYNAMIC_RANK, Dim, Shape, TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check, integer_values, normalize_axis, shape_text
from irgraph.ops.plan_step import reshaping
from irgraph.ops.registry import register

AXES_RANK = "Second input (axes) should not be of rank higher than 1. Got: {}"


@dataclass(frozen=True)
class _Squeeze(Op):
    """Both versions. Without ``axes`` (or with an empty one) every static 1 goes; a dim that may
    be 1 but is not static makes the rank unknown. A named axis goes when its dim may be 1 and
    stays otherwise (OpenVINO 2026.4.1 keeps a named dim of 2 without an error). The output is a
    view of the input."""

    type_name = "Squeeze"
    inputs = Inputs.optional(1, InputSpec("data"), InputSpec("axes"))
    bound_inputs = (0,)
    forwards_values = (0,)

    @property
    def skips_uncertain_axes(self) -> bool:
        """True when a named dim that may or may not be 1 makes the rank unknown (allow_axis_skip)."""
        return False

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The dims that stay."""
        data = inputs[0]
        if len(inputs) > 1:
            axes = inputs[1]
            check(
                axes.element_type.is_integral or axes.element_type.is_dynamic,
                f"Axes input must be of integral type. Got: {axes.element_type}",
            )
            check(axes.shape.rank_is_dynamic or axes.shape.rank <= 1, AXES_RANK.format(axes.shape))
            if data.shape.rank_is_dynamic:
                return [TensorType(data.element_type, DYNAMIC_RANK)]
            if values[1] is None:
                return [TensorType(data.element_type, self._unknown_axes(data.shape, axes.shape))]
            axes_values = integer_values(values[1], "axes")
        else:
            axes_values = []
        if data.shape.rank_is_dynamic:
            return [TensorType(data.element_type, DYNAMIC_RANK)]
        dims = self._kept(list(data.shape), axes_values)
        return [TensorType(data.element_type, DYNAMIC_RANK if dims is None else Shape(tuple(dims)))]

    def _unknown_axes(self, data: Shape, axes: Shape) -> Shape:
        """OpenVINO 2026.4.1 with one axis of unknown value: the input shape when no dim may be 1,
        else (Squeeze-1) one dim fewer, all ``?``; otherwise the rank is unknown."""
        one_axis = not axes.rank_is_dynamic and (axes.rank == 0 or axes[0] == Dim.static(1))
        if not one_axis:
            return DYNAMIC_RANK
        if not any(d.contains(1) for d in data):
            return data
        return DYNAMIC_RANK if isinstance(self, Squeeze15) else Shape.dynamic(data.rank - 1)

    def _kept(self, dims: list[Dim], axes: list[int]) -> list[Dim] | None:
        one = Dim.static(1)
        if not axes:
            if any(d.is_dynamic and d.contains(1) for d in dims):
                return None
            return [d for d in dims if d != one]
        if not dims:  # a scalar takes axes 0 and -1 (OpenVINO checks them against rank 1) and stays a scalar
            for axis in axes:
                normalize_axis(axis, 1)
            return []
        drop = {normalize_axis(a, len(dims)) for a in axes}
        for index in drop:
            if self.skips_uncertain_axes and dims[index].is_dynamic and dims[index].contains(1):
                return None
        return [d for i, d in enumerate(dims) if i not in drop or not d.contains(1)]

    def output_shapes(self, inputs: Sequence[np.ndarray]) -> list[tuple[int, ...]]:
        """The input shape without the squeezed dims."""
        return [np.shape(self.evaluate(inputs)[0])]

    def bound_evaluate(self, inputs: Sequence[TensorType], constants: Sequence[np.ndarray | None],
                       outputs: Sequence[TensorType]) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
        """``np.reshape`` to the static output shape, when the shapes are static."""
        return reshaping(inputs, outputs)

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A reshaped view."""
        data = inputs[0]
        axes: list[int] = []
        if len(inputs) > 1:
            check(np.ndim(inputs[1]) <= 1, AXES_RANK.format(shape_text(np.shape(inputs[1]))))
            axes = integer_values(inputs[1], "axes")
        dims = self._kept([Dim.static(s) for s in np.shape(data)], axes)
        return [np.reshape(data, tuple(d.value for d in dims or ()))]


@register
@dataclass(frozen=True)
class Squeeze(_Squeeze):
    """Remove dims of size 1 (all of them, or those ``axes`` names). Spec: Squeeze-1."""

    introduced = 1


@register
@dataclass(frozen=True)
class Squeeze15(_Squeeze):
    """Squeeze-1 plus ``allow_axis_skip``: a named dim that may or may not be 1 makes the output rank
    unknown instead of being squeezed. Spec: Squeeze-15."""

    introduced = 15

    allow_axis_skip: bool = attribute(False)

    @property
    def skips_uncertain_axes(self) -> bool:
        """``allow_axis_skip``."""
        return self.allow_axis_skip
