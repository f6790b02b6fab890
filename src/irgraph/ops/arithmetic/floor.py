"""Floor-1: element-wise round toward minus infinity; integers pass through."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Floor(UnaryMath):
    """Element-wise round toward minus infinity; integers pass through. Spec: Floor-1."""

    type_name = "Floor"
    introduced = 1
    compute = staticmethod(np.floor)
    integers = "identity"
