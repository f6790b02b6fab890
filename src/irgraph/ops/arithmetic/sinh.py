"""Sinh-1: element-wise hyperbolic sine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Sinh(UnaryMath):
    """Element-wise hyperbolic sine. Spec: Sinh-1."""

    type_name = "Sinh"
    introduced = 1
    compute = staticmethod(np.sinh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
