"""Tan-1: element-wise tangent."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Tan(UnaryMath):
    """Element-wise tangent. Spec: Tan-1."""

    type_name = "Tan"
    introduced = 1
    compute = staticmethod(np.tan)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
