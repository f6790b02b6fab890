"""Mish-4: element-wise x * tanh(softplus(x))."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _mish(x: np.ndarray) -> np.ndarray:
    return x * np.tanh(np.log1p(np.exp(x)))


@register
class Mish(UnaryMath):
    """x * tanh(log(1 + exp(x))), floats only. Spec: Mish-4."""

    type_name = "Mish"
    opsets = range(4, 17)
    type_rule = REAL
    compute = staticmethod(_mish)
    tolerance = Tolerance(ulp=4)
