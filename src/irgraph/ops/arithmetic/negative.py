"""Negative-1: element-wise -x; integers wrap."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


@register
class Negative(UnaryMath):
    """Element-wise -x; integers wrap. Spec: Negative-1."""

    type_name = "Negative"
    introduced = 1
    compute = staticmethod(np.negative)
    integers = "native"
