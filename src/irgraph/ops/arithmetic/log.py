"""Log-1: element-wise natural logarithm."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


@register
class Log(UnaryMath):
    """Element-wise natural logarithm. Spec: Log-1."""

    type_name = "Log"
    introduced = 1
    compute = staticmethod(np.log)
    tolerance = Tolerance(ulp=2)
