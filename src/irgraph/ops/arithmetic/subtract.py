"""Subtract-1: element-wise a - b."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


@register
class Subtract(BinaryArithmetic):
    """a - b with auto_broadcast; integers wrap. Spec: Subtract-1."""

    type_name = "Subtract"
    bounds_at_corners = True
    introduced = 1
    compute = staticmethod(np.subtract)
