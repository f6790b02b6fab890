"""Asin-1: element-wise arcsine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Asin(UnaryMath):
    """Element-wise arcsine. Spec: Asin-1."""

    type_name = "Asin"
    introduced = 1
    compute = staticmethod(np.arcsin)
    tolerance = Tolerance(ulp=4)
