"""SquaredDifference-1: element-wise (a - b) * (a - b)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


def _squared_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    difference = np.subtract(a, b)
    return np.multiply(difference, difference)


@register
class SquaredDifference(BinaryArithmetic):
    """(a - b) * (a - b) with auto_broadcast; integers wrap. Spec: SquaredDifference-1."""

    type_name = "SquaredDifference"
    introduced = 1
    compute = staticmethod(_squared_difference)
