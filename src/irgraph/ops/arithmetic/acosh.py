"""Acosh-3: element-wise inverse hyperbolic cosine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Acosh(UnaryMath):
    """Element-wise inverse hyperbolic cosine. Spec: Acosh-3."""

    type_name = "Acosh"
    introduced = 4
    compute = staticmethod(np.arccosh)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
