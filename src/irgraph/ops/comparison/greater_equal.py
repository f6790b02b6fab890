"""GreaterEqual-1: element-wise a >= b, a boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import Comparison
from irgraph.ops.registry import register


@register
class GreaterEqual(Comparison):
    """a >= b with auto_broadcast (NaN compares as IEEE says). Spec: GreaterEqual-1."""

    type_name = "GreaterEqual"
    introduced = 1
    compute = staticmethod(np.greater_equal)
