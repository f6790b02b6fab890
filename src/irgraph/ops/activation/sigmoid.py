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
    # 1 / (1 + exp(-x)), the same calls in the same order, in one array instead of four (YOLOv8n's class scores:
    # 672,000 values, where the temporaries' allocation costs more than the arithmetic)
    one = x.dtype.type(1)
    result = np.negative(x, out=np.empty_like(x))  # an array even for 0-d data
    np.exp(result, out=result)
    np.add(one, result, out=result)
    np.divide(one, result, out=result)
    return result


@register
class Sigmoid(UnaryMath):
    """1 / (1 + exp(-x)). Spec: Sigmoid-1."""

    type_name = "Sigmoid"
    introduced = 1
    compute = staticmethod(_sigmoid)
    integers = "native"
    tolerance = Tolerance(ulp=4)
