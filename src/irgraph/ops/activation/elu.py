"""Elu-1: element-wise x > 0 ? x : alpha * (exp(x) - 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.op import Tolerance, attribute
from irgraph.ops.registry import register


@register
@dataclass(frozen=True)
class Elu(UnaryMath):
    """x > 0 ? x : alpha * (exp(x) - 1), floats only. Spec: Elu-1."""

    type_name = "Elu"
    type_rule = REAL
    tolerance = Tolerance(ulp=2)

    alpha: float = attribute()

    def compute_values(self, data: np.ndarray) -> Any:
        """The values."""
        alpha = data.dtype.type(self.alpha)
        return np.where(data > 0, data, alpha * np.expm1(data))
