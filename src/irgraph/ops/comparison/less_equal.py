"""LessEqual-1: element-wise a <= b, a boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import Comparison
from irgraph.ops.registry import register


@register
class LessEqual(Comparison):
    """a <= b with auto_broadcast (NaN compares as IEEE says). Spec: LessEqual-1."""

    type_name = "LessEqual"
    introduced = 1
    compute = staticmethod(np.less_equal)
