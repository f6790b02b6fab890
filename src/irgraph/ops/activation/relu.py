"""Relu-1: element-wise max(x, 0)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


def _relu(x: np.ndarray) -> np.ndarray:
    # OpenVINO's reference is `x > 0 ? x : 0`: NaN and -0.0 give +0.
    return np.where(x > 0, x, x.dtype.type(0))


@register
class Relu(UnaryMath):
    """x > 0 ? x : 0. Spec: Relu-1."""

    type_name = "Relu"
    compute = staticmethod(_relu)
    integers = "native"
