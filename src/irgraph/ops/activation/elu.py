"""Elu-1: element-wise x > 0 ? x : alpha * (exp(x) - 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.numeric import convert
from irgraph.ops.op import Tolerance, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Elu(UnaryMath):
    """x > 0 ? x : alpha * (exp(x) - 1). Spec: Elu-1."""

    type_name = "Elu"
    introduced = 1
    tolerance = Tolerance(ulp=2)

    alpha: float = attribute()

    def compute_values(self, data: np.ndarray) -> Any:
        """The values; integers computed in f64 and truncated back."""
        if data.dtype.kind in "iu":
            wide = data.astype(np.float64)
            result = np.where(wide > 0, wide, self.alpha * np.expm1(wide))
            return convert(result, ElementType.F64, ElementType.from_numpy(data.dtype))
        alpha = data.dtype.type(self.alpha)
        return np.where(data > 0, data, alpha * np.expm1(data))
