"""Maximum-1: element-wise larger of a and b."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


def _maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # OpenVINO's reference is std::max(a, b), `a < b ? b : a`: a NaN in either place yields a.
    return np.where(a < b, b, a)


@register
class Maximum(BinaryArithmetic):
    """std::max: ``a < b ? b : a`` with auto_broadcast, NaN as OpenVINO's reference. Spec: Maximum-1."""

    type_name = "Maximum"
    bounds_at_corners = True
    introduced = 1
    compute = staticmethod(_maximum)
