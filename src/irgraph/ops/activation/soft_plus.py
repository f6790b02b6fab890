"""SoftPlus-4: element-wise log(exp(x) + 1)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _soft_plus(x: np.ndarray) -> np.ndarray:
    # log(exp(x) + 1) overflows for large x where the result is x itself (OpenVINO switches at a threshold).
    return np.where(x > x.dtype.type(20), x, np.log1p(np.exp(x)))


@register
class SoftPlus(UnaryMath):
    """log(exp(x) + 1), floats only. Spec: SoftPlus-4."""

    type_name = "SoftPlus"
    opsets = range(4, 17)
    type_rule = REAL
    compute = staticmethod(_soft_plus)
    tolerance = Tolerance(ulp=4)
