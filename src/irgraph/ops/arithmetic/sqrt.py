"""Sqrt-1: element-wise square root."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Sqrt(UnaryMath):
    """Element-wise square root. Spec: Sqrt-1."""

    type_name = "Sqrt"
    introduced = 1
    compute = staticmethod(np.sqrt)
    integers = "round"  # OpenVINO: static_cast<T>(std::round(f(x))) for integers
