"""Asinh-3: element-wise inverse hyperbolic sine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Asinh(UnaryMath):
    """Element-wise inverse hyperbolic sine. Spec: Asinh-3."""

    type_name = "Asinh"
    introduced = 4
    compute = staticmethod(np.arcsinh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
