"""Identity-16: the input, unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Identity(Op):
    """The input's type and values, of any element type (strings included). Spec: Identity-16."""

    type_name = "Identity"
    introduced = 16
    inputs = Inputs.of(InputSpec("data"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input's type."""
        return [inputs[0]]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The input itself: arrays are never written in place, so no copy is needed."""
        return [inputs[0]]
