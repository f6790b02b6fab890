"""Acos-1: element-wise arccosine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Acos(UnaryMath):
    """Element-wise arccosine. Spec: Acos-1."""

    type_name = "Acos"
    introduced = 1
    compute = staticmethod(np.arccos)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
