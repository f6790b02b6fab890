"""Less-1: element-wise a < b, a boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import Comparison
from irgraph.ops.registry import register


@register
class Less(Comparison):
    """a < b with auto_broadcast (NaN compares as IEEE says). Spec: Less-1."""

    type_name = "Less"
    introduced = 1
    compute = staticmethod(np.less)
