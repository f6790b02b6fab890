"""Relu-1: element-wise max(x, 0)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


def _relu(x: np.ndarray) -> np.ndarray:
    # OpenVINO's reference is std::max(x, 0), `x < 0 ? 0 : x`: NaN and -0.0 pass through.
    return np.where(x < 0, x.dtype.type(0), x)


@register
class Relu(UnaryMath):
    """std::max(x, 0): x < 0 ? 0 : x (NaN stays NaN). Spec: Relu-1."""

    type_name = "ReLU"  # as OpenVINO writes it in IR (its class is Relu)
    compute = staticmethod(_relu)
    integers = "native"
