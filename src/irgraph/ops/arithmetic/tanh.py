"""Tanh-1: element-wise hyperbolic tangent."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Tanh(UnaryMath):
    """Element-wise hyperbolic tangent. Spec: Tanh-1."""

    type_name = "Tanh"
    introduced = 1
    compute = staticmethod(np.tanh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
