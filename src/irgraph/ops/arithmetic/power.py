"""Power-1: element-wise a ** b."""

from __future__ import annotations

import numpy as np

from irgraph.core.element_types import ElementType
from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.numeric import convert
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        return np.power(a, b)
    # OpenVINO computes std::pow in double and casts back: negative exponents truncate toward 0.
    result = np.power(a.astype(np.float64), b.astype(np.float64))
    return convert(result, ElementType.F64, ElementType.from_numpy(a.dtype))


@register
class Power(BinaryArithmetic):
    """a ** b with auto_broadcast. Spec: Power-1."""

    type_name = "Power"
    introduced = 1
    compute = staticmethod(_power)
    float_ufunc = np.power
    tolerance = Tolerance(ulp=2)
