"""Result-1: a model output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op
from irgraph.ops.registry import register


@register
@dataclass(frozen=True, eq=False, repr=False)  # Op's eq, hash and repr, not compiled at every start-up
class Result(Op):
    """A model output: passes its input through. Spec: Result-1."""

    type_name = "Result"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"))

    def output_count(self, input_values: Sequence[np.ndarray | None]) -> int:
        """Results have no output ports."""
        return 0

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """No outputs; the model output's type is the input's."""
        return []

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Nothing: the interpreter reads a Result's input as the model output."""
        return []
