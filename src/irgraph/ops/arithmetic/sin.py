"""Sin-1: element-wise sine."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Sin(UnaryMath):
    """Element-wise sine. Spec: Sin-1."""

    type_name = "Sin"
    introduced = 1
    compute = staticmethod(np.sin)
    tolerance = Tolerance(ulp=2)
