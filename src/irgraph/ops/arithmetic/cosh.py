"""Cosh-1: element-wise hyperbolic cosine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Cosh(UnaryMath):
    """Element-wise hyperbolic cosine. Spec: Cosh-1."""

    type_name = "Cosh"
    introduced = 1
    compute = staticmethod(np.cosh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
