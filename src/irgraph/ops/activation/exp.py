"""Exp-1: element-wise e ** x."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Exp(UnaryMath):
    """Element-wise e ** x. Spec: Exp-1."""

    type_name = "Exp"
    introduced = 1
    compute = staticmethod(np.exp)
    tolerance = Tolerance(ulp=2)
