"""Mish-4: element-wise x * tanh(softplus(x))."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _mish(x: np.ndarray) -> np.ndarray:
    # OpenVINO's reference order, x * tanh(log(exp(x) + 1)), in the element type (not log1p), each function
    # correctly rounded as glibc's are (NumPy's own f32 exp/log/tanh drift by a few ULPs more).
    def rounded(function, values):
        return function(values.astype(np.float64)).astype(x.dtype)

    return x * rounded(np.tanh, rounded(np.log, rounded(np.exp, x) + x.dtype.type(1)))


@register
class Mish(UnaryMath):
    """x * tanh(log(1 + exp(x))), floats only. Spec: Mish-4."""

    type_name = "Mish"
    introduced = 4
    type_rule = REAL
    compute = staticmethod(_mish)
    tolerance = Tolerance(ulp=4, eps=1)  # near zero: exp(x) + 1 rounds away the digits, as in OpenVINO
