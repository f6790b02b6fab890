"""Cos-1: element-wise cosine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Cos(UnaryMath):
    """Element-wise cosine. Spec: Cos-1."""

    type_name = "Cos"
    introduced = 1
    compute = staticmethod(np.cos)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
    tolerance = Tolerance(ulp=2)
