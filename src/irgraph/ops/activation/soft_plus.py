"""SoftPlus-4: element-wise log(exp(x) + 1)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _soft_plus(x: np.ndarray) -> np.ndarray:
    # OpenVINO's reference: log(exp(x) + 1) in the element type (not log1p: small results lose digits as
    # there), and x itself above the threshold where exp(x) + 1 == exp(x).
    threshold = x.dtype.type(-np.log(np.expm1(np.finfo(x.dtype).eps)))
    return np.where(x < threshold, np.log(np.exp(x) + x.dtype.type(1)), x)


@register
class SoftPlus(UnaryMath):
    """log(exp(x) + 1), floats only. Spec: SoftPlus-4."""

    type_name = "SoftPlus"
    introduced = 4
    type_rule = REAL
    compute = staticmethod(_soft_plus)
    tolerance = Tolerance(ulp=4, eps=1)  # near zero both lose every digit to 1 + exp(x) rounding
