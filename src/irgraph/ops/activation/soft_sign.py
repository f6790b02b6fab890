"""SoftSign-9: element-wise x / (1 + |x|)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import REAL, UnaryMath
from irgraph.ops.registry import register


def _soft_sign(x: np.ndarray) -> np.ndarray:
    return x / (x.dtype.type(1) + np.abs(x))


@register
class SoftSign(UnaryMath):
    """x / (1 + |x|), floats only. Spec: SoftSign-9."""

    type_name = "SoftSign"
    introduced = 9
    type_rule = REAL
    compute = staticmethod(_soft_sign)
