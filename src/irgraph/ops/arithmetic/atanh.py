"""Atanh-3: element-wise inverse hyperbolic tangent."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Atanh(UnaryMath):
    """Element-wise inverse hyperbolic tangent. Spec: Atanh-3."""

    type_name = "Atanh"
    introduced = 4
    compute = staticmethod(np.arctanh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
