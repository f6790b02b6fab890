"""GRN-1: global response normalization, x / sqrt(sum over channels of x^2 + bias)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import NUMERIC
from irgraph.ops.normalization.normalize_l2 import NormalizeL2
from irgraph.ops.op import Inputs, InputSpec, Op, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class GRN(Op):
    """NormalizeL2 over axis 1 with ``bias`` added to the sum (OpenVINO's reference is exactly that), on
    2D to 4D data. Spec: GRN-1."""

    type_name = "GRN"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"))
    tolerance = NormalizeL2.tolerance

    bias: float = attribute()

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's type, of rank 2 to 4."""
        (data,) = inputs
        NUMERIC.check(data.element_type)
        if not data.shape.rank_is_dynamic and not 2 <= data.shape.rank <= 4:
            raise OpError(f"Input tensor rank must be 2, 3 or 4 dimensional (actual input shape: {data.shape}).")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """NormalizeL2's computation over the channels."""
        (data,) = inputs
        if not 2 <= data.ndim <= 4:
            raise OpError(f"Input tensor rank must be 2, 3 or 4 dimensional (actual input shape: {list(data.shape)}).")
        return NormalizeL2(eps=self.bias, eps_mode="add").evaluate([data, np.array([1], np.int64)])
