"""Selu-1: element-wise lambda * x for x > 0, else alpha * lambda * (exp(x) - 1)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.families.elementwise import merge_element_types, widened
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Selu(Op):
    """The scaled exponential linear unit, ``alpha`` and ``lambda`` one-element inputs of the data's type.

    irgraph is stricter than OpenVINO 2026.4.1, whose reference cycles through longer ``alpha`` and
    ``lambda`` tensors element by element: it takes one value each, as the spec says. Spec: Selu-1.
    """

    type_name = "Selu"
    introduced = 1
    inputs = Inputs.of(InputSpec("data"), InputSpec("alpha"), InputSpec("lambda"))
    tolerance = Tolerance(ulp=2)
    """exp differs between libm and NumPy by an ULP or so."""

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The data's shape and the merged element type, which must be a float."""
        data, alpha, scale = inputs
        types = [data.element_type, alpha.element_type, scale.element_type]
        try:
            element_type = merge_element_types(types)
        except OpError:
            raise OpError(f"Input element types do not match : {types[0]} and {types[1]} and {types[2]}") from None
        if not element_type.is_dynamic and not element_type.is_real:
            raise OpError(f"Input element types must be floating-point. Got: {element_type}")
        for name, tensor_type in (("alpha", alpha), ("lambda", scale)):
            if tensor_type.shape.is_static and math.prod(tensor_type.shape.to_tuple()) != 1:
                raise OpError(f"'{name}' must hold one value; it has shape {tensor_type.shape}")
        return [TensorType(element_type, data.shape)]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The two branches, in the data's precision (f16/bf16 through f32)."""
        data, alpha, scale = inputs
        if alpha.size != 1 or scale.size != 1:
            raise OpError(f"'alpha' and 'lambda' must hold one value each; they have shapes {list(alpha.shape)} and "
                          f"{list(scale.shape)}")
        if not data.dtype == alpha.dtype == scale.dtype:
            raise OpError(f"Input element types do not match : {data.dtype} and {alpha.dtype} and {scale.dtype}")

        def selu(x: np.ndarray, a: np.ndarray, s: np.ndarray) -> np.ndarray:
            a, s = a.reshape(()), s.reshape(())
            return np.where(x > 0, s * x, a * s * (np.exp(x) - x.dtype.type(1)))

        return [widened(selu, (data, alpha, scale), data.dtype)]
