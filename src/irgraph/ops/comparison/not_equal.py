"""NotEqual-1: element-wise a != b, a boolean tensor."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import Comparison
from irgraph.ops.registry import register


@register
class NotEqual(Comparison):
    """a != b with auto_broadcast (NaN compares as IEEE says; strings by value). Spec: NotEqual-1."""

    type_name = "NotEqual"
    introduced = 1
    compares_strings = True
    compute = staticmethod(np.not_equal)
