"""Sigmoid-1: element-wise 1 / (1 + exp(-x))."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.op import Tolerance
from irgraph.ops.registry import register


def _sigmoid(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        # OpenVINO computes 1 / (1 + T(exp(-x))) in integers: 1 for x > 0, else 0.
        return (x > 0).astype(x.dtype)
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


@register
class Sigmoid(UnaryMath):
    """1 / (1 + exp(-x)). Spec: Sigmoid-1."""

    type_name = "Sigmoid"
    introduced = 1
    compute = staticmethod(_sigmoid)
    integers = "native"
    tolerance = Tolerance(ulp=4)
