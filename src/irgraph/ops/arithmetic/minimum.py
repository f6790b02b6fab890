"""Minimum-1: element-wise smaller of a and b."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import BinaryArithmetic
from irgraph.ops.registry import register


def _minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # OpenVINO's reference is std::min(a, b), `b < a ? b : a`: a NaN in either place yields a.
    return np.where(b < a, b, a)


@register
class Minimum(BinaryArithmetic):
    """std::min: ``b < a ? b : a`` with auto_broadcast, NaN as OpenVINO's reference. Spec: Minimum-1."""

    type_name = "Minimum"
    bounds_at_corners = True
    introduced = 1
    compute = staticmethod(_minimum)
