"""Add-1: element-wise a + b."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


@register
class Add(BinaryArithmetic):
    """a + b with auto_broadcast; integers wrap. Spec: Add-1."""

    type_name = "Add"
    bounds_at_corners = True
    introduced = 1
    compute = staticmethod(np.add)
