"""Parameter-1: a model input."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import SCALAR, Shape, TensorType
from irgraph.ops.op import Inputs, Op, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True, eq=False, repr=False)  # Op's eq, hash and repr, not compiled at every start-up
class Parameter(Op):
    """A model input of a partial ``shape`` and ``element_type``. Spec: Parameter-1.

    A missing ``shape`` means a scalar and a missing ``element_type`` means dynamic, as in OpenVINO.
    """

    type_name = "Parameter"
    introduced = 1
    inputs = Inputs.of()

    shape: Shape = attribute(SCALAR)
    element_type: ElementType = attribute(ElementType.DYNAMIC)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The declared type."""
        return [TensorType(self.element_type, self.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Parameters are fed by the interpreter, never evaluated."""
        raise NotImplementedError("Parameter values come from the feeds")
