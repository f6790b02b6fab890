"""ConvertLike-1: element-wise conversion to the element type of a second input."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op
from irgraph.ops.registry import register
from irgraph.ops.type.convert import convert_values


@register
@dataclass(frozen=True)
class ConvertLike(Op):
    """Convert ``data`` to the element type of ``like`` (whose values are unused). Spec: ConvertLike-1."""

    type_name = "ConvertLike"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("like"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """``data``'s shape with ``like``'s element type."""
        return [TensorType(inputs[1].element_type, inputs[0].shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``data`` converted as Convert converts it."""
        return [convert_values(inputs[0], ElementType.from_numpy(inputs[1].dtype))]
