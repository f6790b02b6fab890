"""Swish-4: element-wise x * sigmoid(beta * x), beta an optional scalar input (1 when absent)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL, widened
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Swish(Op):
    """x / (1 + exp(-beta * x)); floats only; ``beta`` a scalar of the same type (1 when absent). Spec: Swish-4."""

    type_name = "Swish"
    introduced = 4
    inputs = Inputs.optional(1, InputSpec("data"), InputSpec("beta"))
    tolerance = Tolerance(ulp=2)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data type; beta must be a scalar (or [1]) of the same element type."""
        data = inputs[0]
        REAL.check(data.element_type)
        if len(inputs) == 2:
            beta = inputs[1]
            if beta.element_type.merge(data.element_type) is None:
                raise OpError(f"Swish inputs must have the same type but they are: {data.element_type} and "
                              f"{beta.element_type}")
            if not beta.shape.rank_is_dynamic and beta.shape.rank != 0:
                raise OpError(f"Swish input with beta must be scalar but it has rank: {beta.shape.rank}")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """x / (1 + exp(-beta * x))."""
        data = inputs[0]
        if len(inputs) == 2 and inputs[1].ndim != 0:
            raise OpError(f"Swish input with beta must be scalar but it has rank: {inputs[1].ndim}")
        beta = inputs[1] if len(inputs) == 2 else np.ones((), data.dtype)
        if beta.dtype != data.dtype:
            raise OpError(f"Swish inputs must have the same type but they are: {data.dtype} and {beta.dtype}")

        def swish(x: np.ndarray, b: np.ndarray) -> np.ndarray:
            # x / (1 + exp(-b * x)), the same calls in the same order, in one array instead of four: on YOLOv8n's
            # large maps the temporaries' allocation and page faults cost more than the arithmetic
            one = x.dtype.type(1)
            result = np.multiply(-b, x, out=np.empty_like(x))  # an array even for 0-d data
            np.exp(result, out=result)
            np.add(one, result, out=result)
            np.divide(x, result, out=result)
            return result

        return [widened(swish, (data, beta), data.dtype)]
