"""Erf-1: element-wise the error function."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.numeric import erf
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _erf(x: np.ndarray) -> np.ndarray:
    """erf computed in f64 (vectorised series and continued fraction), rounded to the input's type."""
    return erf(x).astype(x.dtype)


@register
class Erf(UnaryMath):
    """Element-wise the error function. Spec: Erf-1."""

    type_name = "Erf"
    introduced = 1
    compute = staticmethod(_erf)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=16)
