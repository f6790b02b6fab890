"""Sign-1: element-wise -1, 0 or 1 (NaN stays NaN, -0.0 gives 0)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Sign(UnaryMath):
    """Element-wise -1, 0 or 1 (NaN stays NaN, -0.0 gives 0). Spec: Sign-1."""

    type_name = "Sign"
    introduced = 1
    compute = staticmethod(np.sign)
    integers = "native"
