"""Ceiling-1: element-wise round toward plus infinity; integers pass through."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Ceiling(UnaryMath):
    """Element-wise round toward plus infinity; integers pass through. Spec: Ceiling-1."""

    type_name = "Ceiling"
    introduced = 1
    compute = staticmethod(np.ceil)
    integers = "identity"
