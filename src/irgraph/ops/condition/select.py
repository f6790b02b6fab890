"""Select-1: element-wise cond ? then : else, with auto_broadcast."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import (
    AUTO_BROADCAST_MODES,
    broadcast_arrays,
    broadcast_shapes,
    merge_element_types,
)
from irgraph.ops.op import Inputs, InputSpec, Op, attribute, check
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Select(Op):
    """``cond ? then : else`` element-wise; ``cond`` is boolean, ``then`` and ``else`` share a type.

    Shapes: ``then`` and ``else`` broadcast together under ``auto_broadcast``, then ``cond`` into
    the result (OpenVINO's ``select_shape_infer``). Exact: values are copied, never computed. Spec:
    Select-1.
    """

    type_name = "Select"
    introduced = 1
    inputs = Inputs.of(InputSpec("cond"), InputSpec("then"), InputSpec("else"))
    mask_inputs = (0,)
    bound_inputs = (1, 2)  # with the condition known, each element is the bound of the one it copies

    auto_broadcast: str = attribute("numpy")

    def __post_init__(self) -> None:
        check(
            self.auto_broadcast in AUTO_BROADCAST_MODES,
            f"Attribute 'auto_broadcast' must be one of {', '.join(AUTO_BROADCAST_MODES)}. Got: "
            f"{self.auto_broadcast!r}",
        )

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The merged type of ``then`` and ``else``, and the three shapes broadcast."""
        cond, then, other = inputs
        check(cond.element_type in (ElementType.BOOLEAN, ElementType.DYNAMIC),
              f"Argument 0 must have boolean element type (element type: {cond.element_type}).")
        if then.element_type.merge(other.element_type) is None:
            raise OpError(f"Argument 1 and 2 element types must match. Got: {then.element_type} and "
                          f"{other.element_type}")
        element_type = merge_element_types([then.element_type, other.element_type])
        shape = broadcast_shapes(then.shape, other.shape, self.auto_broadcast)
        if self.auto_broadcast == "pdpd":
            shape = broadcast_shapes(shape, cond.shape, "pdpd")
        else:
            shape = broadcast_shapes(cond.shape, shape, self.auto_broadcast)
        return [TensorType(element_type, shape)]

    def _shapes(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, ...]]:
        cond, then, other = inputs
        then, other, both = broadcast_arrays(then, other, self.auto_broadcast)
        if self.auto_broadcast == "pdpd":
            template = np.broadcast_to(then, both)
            _, cond, shape = broadcast_arrays(template, cond, "pdpd")
        else:
            cond, _, shape = broadcast_arrays(cond, np.broadcast_to(then, both), self.auto_broadcast)
        return cond, then, other, shape

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.where`` over the broadcast inputs."""
        if inputs[0].dtype != np.bool_:
            raise OpError(f"Argument 0 must have boolean element type (element type: {inputs[0].dtype}).")
        if inputs[1].dtype != inputs[2].dtype:
            raise OpError(f"Argument 1 and 2 element types must match. Got: {inputs[1].dtype} and {inputs[2].dtype}")
        cond, then, other, shape = self._shapes(inputs)
        result = np.where(cond, then, other)
        return [result if result.shape == shape else np.broadcast_to(result, shape).copy()]
