"""Relu-1: element-wise max(x, 0)."""

from __future__ import annotations

import numpy as np

from irgraph.ops.families.elementwise import UnaryMath
from irgraph.ops.registry import register


def _relu(x: np.ndarray) -> np.ndarray:
    # OpenVINO's reference is std::max(x, 0), `x < 0 ? 0 : x`: NaN and -0.0 pass through.
    return np.where(x < 0, x.dtype.type(0), x)


def _relu_into(x: np.ndarray, target: np.ndarray) -> None:
    # The same selection written into target (x itself when the interpreter donates it): negatives become 0.
    negative = x < 0
    if target is not x:
        np.copyto(target, x)
    np.copyto(target, x.dtype.type(0), where=negative)


@register
class Relu(UnaryMath):
    """std::max(x, 0): x < 0 ? 0 : x (NaN stays NaN). Spec: Relu-1."""

    type_name = "ReLU"  # as OpenVINO writes it in IR (its class is Relu)
    compute = staticmethod(_relu)
    compute_into = staticmethod(_relu_into)
    integers = "native"
