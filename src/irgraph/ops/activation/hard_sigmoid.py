"""HardSigmoid-1: element-wise max(0, min(1, alpha * x + beta)), alpha and beta scalar inputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import REAL, widened
from irgraph.ops.op import Inputs, InputSpec, Op
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class HardSigmoid(Op):
    """``max(0, min(1, alpha * x + beta))`` with the scalars ``alpha`` and ``beta`` of the data's type.

    OpenVINO 2026.4.1 has no reference evaluate for it; its CPU plugin computes in the data's float
    type, f16 and bf16 through f32. Spec: HardSigmoid-1.
    """

    type_name = "HardSigmoid"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("alpha"), InputSpec("beta"))

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's type; alpha and beta are scalars of that type."""
        data, alpha, beta = inputs
        for name, scalar in (("alpha", alpha), ("beta", beta)):
            if scalar.shape.is_static and scalar.shape.rank != 0:
                raise OpError(f"A scalar is expected for the '{name}' input. Got: {scalar.shape}")
        if not (data.element_type == alpha.element_type == beta.element_type):
            raise OpError("The element types of both alpha and beta inputs must match the data input type.")
        REAL.check(data.element_type)
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The clipped line, in the data's precision (f16/bf16 through f32)."""
        data, alpha, beta = inputs
        if alpha.ndim or beta.ndim:
            raise OpError(f"A scalar is expected for the 'alpha' and 'beta' inputs. Got: {list(alpha.shape)} and "
                          f"{list(beta.shape)}")
        if not data.dtype == alpha.dtype == beta.dtype:
            raise OpError("The element types of both alpha and beta inputs must match the data input type.")

        def hard_sigmoid(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            line = a * x + b
            # std::max(0, std::min(1, v)) with std::min(a, b) = b < a ? b : a and std::max(a, b) = a < b ? b : a:
            # NaN gives 1 and -0.0 gives 0.0, as OpenVINO's CPU plugin answers
            low = np.where(line < 1, line, x.dtype.type(1))
            return np.where(0 < low, low, x.dtype.type(0))

        return [widened(hard_sigmoid, (data, alpha, beta), data.dtype)]
