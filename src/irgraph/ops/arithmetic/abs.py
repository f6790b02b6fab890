"""Abs-1: element-wise |x|; the minimum integer stays itself."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Abs(UnaryMath):
    """Element-wise |x|; the minimum integer stays itself. Spec: Abs-1."""

    type_name = "Abs"
    introduced = 1
    compute = staticmethod(np.abs)
    integers = "native"
