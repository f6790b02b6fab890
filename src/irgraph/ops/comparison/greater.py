"""Greater-1: element-wise a > b, a boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import Comparison
from irgraph.ops.registry import register


@register
class Greater(Comparison):
    """a > b with auto_broadcast (NaN compares as IEEE says). Spec: Greater-1."""

    type_name = "Greater"
    introduced = 1
    compute = staticmethod(np.greater)
