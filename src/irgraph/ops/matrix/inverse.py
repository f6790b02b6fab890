"""Inverse-14: the inverse (or, with ``adjoint``, the adjugate: inverse times determinant) of square matrices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irgraph.core.errors import OpError
from irgraph.core.shapes import TensorType
from irgraph.ops.op import Inputs, InputSpec, Op, Tolerance, attribute, check
from irgraph.ops.registry import register
from irgraph.ops.traits import OpTraits


@register
@dataclass(frozen=True)
class Inverse(Op):
    """The inverse of each matrix of the last two dims, batched over the others; ``adjoint`` multiplies it by the
    matrix's determinant (the adjugate, as OpenVINO's reference computes it, not the conjugate transpose).

    OpenVINO's reference runs a partially pivoted LU decomposition in the element type; irgraph solves in
    float64 (LAPACK) and rounds once, so results differ by rounding amplified by the matrix's condition
    number: the tolerance holds for well-conditioned matrices. A singular matrix is refused (OpenVINO's
    reference divides by a zero pivot and returns infinities or NaN). Spec: Inverse-14.
    """

    traits = OpTraits(calls_blas=True)

    type_name = "Inverse"
    introduced = 14
    inputs = Inputs.of(InputSpec("data"))
    tolerance = Tolerance(ulp=64, eps=64)
    """float64 LAPACK against OpenVINO's float32 LU on matrices of condition number below ~10."""

    adjoint: bool = attribute(False)

    def infer(self, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        """The input's type: floats, square matrices in the last two dims."""
        (data,) = inputs
        check(data.element_type.is_dynamic or data.element_type.is_real,
              "Expected floating point type as element type for the 'data' input.")
        if not data.shape.rank_is_dynamic:
            check(data.shape.rank >= 2, "Input must be at least a 2D matrix.")
            check(data.shape[-1].merge(data.shape[-2]) is not None,
                  "Input must contain square matrices of the same shape.")
        return [data]

    def evaluate(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``np.linalg.inv`` in float64 (times ``det`` for the adjugate), rounded to the element type once."""
        (data,) = inputs
        if data.ndim < 2 or data.shape[-1] != data.shape[-2]:
            raise OpError(f"Input must contain square matrices of the same shape. Got: {list(data.shape)}")
        if data.dtype.kind not in "fV":
            raise OpError("Expected floating point type as element type for the 'data' input.")
        wide = data.astype(np.float64)
        try:
            inverse = np.linalg.inv(wide)
        except np.linalg.LinAlgError:
            raise OpError("a matrix is singular: it has no inverse") from None
        if self.adjoint:
            inverse = inverse * np.linalg.det(wide)[..., None, None]
        return [inverse.astype(data.dtype)]
