"""Atan-1: element-wise arctangent."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Atan(UnaryMath):
    """Element-wise arctangent. Spec: Atan-1."""

    type_name = "Atan"
    introduced = 1
    compute = staticmethod(np.arctan)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
